/**
 * kcm does not wait for our passes (attacher mode): at a seeded API request of a step, a pod may
 * be rescheduled (deleted and started again on another node, as its controller does), then kcm
 * runs a reconciler round and the kubelets act. So a VolumeAttachment can be deleted while a pass
 * works on it (or while our attach of it is in flight), created after our read, or created again
 * after we let go of it; an unmount can finish mid-pass.
 */
import type { Random } from '../../sandbox/generate/random.js';
import type { Kubelets } from '../../sandbox/kubelets.js';
import { applyChange, type FaultCluster } from './cluster.js';
import type { World } from './rig.js';

export interface KcmRound {
  /** Which API request of the step fires it (1-based). */
  atRequest: number;
  /** Which pod is rescheduled first and where, as fractions of the lists (drawn up front, so the seed alone decides). */
  reschedule?: { pod: number; node: number };
}

export function pickKcmRound(world: World, random: Random): KcmRound | undefined {
  if (world.mode !== 'attacher' || !random.chance(0.5)) return undefined;
  const atRequest = random.between(1, 40);
  return random.chance(0.5) ? { atRequest, reschedule: { pod: random.next(), node: random.next() } } : { atRequest };
}

/** Arms the round; returns what stops it, and a note of what happened. */
export function armKcmRound(
  world: World,
  cluster: FaultCluster,
  random: Random,
  kubelets: Kubelets,
  round: KcmRound | undefined,
): { stop: () => void; note: () => string | undefined } {
  const kcm = world.kcm;
  if (round === undefined || kcm === undefined) return { stop: () => undefined, note: () => undefined };
  let seen = 0;
  let note: string | undefined;
  const stop = world.kube.onRequest({
    before: () => {
      if (++seen !== round.atRequest) return;
      const moved = round.reschedule ? reschedule(world, cluster, random, round.reschedule) : undefined;
      const report = kcm.step();
      kubelets.run();
      const did = [...(moved ? [moved] : []), ...report.created.map((n) => `created ${n}`), ...report.deleted.map((n) => `deleted ${n}`)];
      note = `kcm round at request ${seen}${did.length ? `: ${did.join(', ')}` : ''}`;
    },
  });
  return { stop, note: () => note };
}

function reschedule(world: World, cluster: FaultCluster, random: Random, pick: { pod: number; node: number }): string | undefined {
  const pods = cluster.pods.filter((p) => p.claims[0] !== 'shared-block');
  const nodes = cluster.nodes.filter((n) => !cluster.terminated.has(n.name) && !cluster.deleted.has(n.name));
  const pod = pods[Math.floor(pick.pod * pods.length)];
  const node = nodes[Math.floor(pick.node * nodes.length)];
  if (!pod || !node) return undefined;
  applyChange(world, cluster, random, { kind: 'move', pod: pod.name, to: node.name });
  return `${pod.name} rescheduled to ${node.name}`;
}
