/**
 * The cluster does not hold still while a pass runs: at a seeded API request during a step's
 * passes, a pod claiming an unclaimed volume is (re)started on a node where EC2 has that volume,
 * and the kubelets act at once. So `volumesInUse` can change between a pass's read and its
 * DetachVolume, and only the live re-check before the detach stands in the way.
 */
import type { Random } from '../../sandbox/generate/random.js';
import type { Kubelets } from '../../sandbox/kubelets.js';
import type { LiveOracle } from '../../sandbox/oracle/live.js';
import { addPod, type FaultCluster } from './cluster.js';
import type { World } from './rig.js';

export interface MidPassRestart {
  /**
   * Which API request of the step fires it (1-based), or `unreport`: the first node-status write
   * to a node holding a candidate, the moment a pass is about to detach from it after its read.
   */
  atRequest: number | 'unreport';
  /** Which candidate it picks, as a fraction of the list (drawn up front, so the seed alone decides). */
  pick: number;
}

export function pickRestart(random: Random): MidPassRestart | undefined {
  if (!random.chance(0.4)) return undefined;
  return { atRequest: random.chance(0.5) ? 'unreport' : random.between(1, 40), pick: random.next() };
}

/** Arms the restart for this step; returns what stops it, and a note of what happened. */
export function armRestart(
  world: World,
  cluster: FaultCluster,
  random: Random,
  parts: { kubelets: Kubelets; oracle: Pick<LiveOracle, 'observe'> },
  restart: MidPassRestart | undefined,
): { stop: () => void; note: () => string | undefined } {
  if (!restart) return { stop: () => undefined, note: () => undefined };
  let seen = 0;
  let note: string | undefined;
  const stop = world.kube.onRequest({
    before: (info) => {
      seen += 1;
      if (note !== undefined) return;
      const unreport = info.resource === 'nodes' && info.subresource === 'status' && info.verb === 'patch';
      if (restart.atRequest === 'unreport' ? !unreport : seen !== restart.atRequest) return;
      const candidates = restartCandidates(world, cluster).filter((c) => restart.atRequest !== 'unreport' || c.node.name === info.name);
      if (restart.atRequest === 'unreport' && candidates.length === 0) return;
      const chosen = candidates[Math.floor(restart.pick * candidates.length)];
      if (!chosen) return void (note = `no pod to restart at request ${seen}`);
      addPod(world, cluster, random, chosen.claim, chosen.node);
      parts.kubelets.run();
      parts.oracle.observe();
      note = `pod for ${chosen.claim} (re)started on ${chosen.node.name} at request ${seen}`;
    },
  });
  return { stop, note: () => note };
}

/**
 * Unclaimed exclusive volumes with an EC2 attachment on a live, Ready node's instance, in a stable
 * order. The scheduler places no new pod on a NotReady node (its not-ready NoSchedule taint).
 */
function restartCandidates(world: World, cluster: FaultCluster) {
  const claimed = new Set(cluster.pods.map((p) => p.claims[0]));
  const nodes = cluster.nodes.filter((n) => ![cluster.deleted, cluster.terminated, cluster.notReady].some((gone) => gone.has(n.name)));
  return cluster.volumes
    .filter((v) => !v.multiAttach && !claimed.has(v.claim.name))
    .flatMap((v) => {
      const holders = [...(world.ec2.world.volumes.get(v.volumeId)?.attachments.keys() ?? [])];
      return nodes.filter((n) => holders.includes(n.instanceId)).map((node) => ({ claim: v.claim.name, node }));
    });
}
