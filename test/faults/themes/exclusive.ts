/**
 * What the exclusive-volume themes share: an RWO volume nobody claims and EC2 holds nowhere (a
 * new pod for it needs a fresh attach), and two Ready nodes to place that pod on in turn.
 */
import type { Random } from '../../../sandbox/generate/random.js';
import type { Change, ClusterShape, FaultCluster } from '../cluster.js';
import type { World } from '../rig.js';
import { busiestNodes, CALM_STEP, type ScriptedStep, type ThemeContext } from './theme.js';

/** Fewer pods than RWO volumes at the start, so fresh claims are left for new pods. */
export const SPARE_CLAIMS: ClusterShape = { nodes: [3, 4], volumes: [4, 5], podChance: 0.4 };

/** Calm steps to settle, the situation scripted at steps 3 and 5 (a calm step between), then the drawn world. */
export function settleThenTwice(step: number, ctx: ThemeContext, script: (ctx: ThemeContext) => ScriptedStep | undefined) {
  if (step === 3 || step === 5) return script(ctx);
  return step <= 4 ? CALM_STEP : undefined;
}

export interface ExclusiveMove {
  claim: string;
  /** Where the new pod is first scheduled, and where it moves. */
  from: string;
  to: string;
}

/** The RWO volumes no pod claims and EC2 holds nowhere: a new pod for one needs a fresh attach. */
export function freeVolumes(world: World, cluster: FaultCluster): FaultCluster['volumes'] {
  const claimed = new Set(cluster.pods.map((p) => p.claims[0]));
  return cluster.volumes.filter(
    (v) => !v.multiAttach && !claimed.has(v.claim.name) && (world.ec2.world.volumes.get(v.volumeId)?.attachments.size ?? 0) === 0,
  );
}

/** A fresh exclusive claim and two Ready nodes, or undefined when the cluster has none to spare. */
export function pickExclusiveMove(world: World, cluster: FaultCluster, random: Random): ExclusiveMove | undefined {
  const free = freeVolumes(world, cluster);
  const nodes = busiestNodes(cluster);
  if (free.length === 0 || nodes.length < 2) return undefined;
  const [from, to] = [...nodes].sort(() => random.next() - 0.5);
  return { claim: random.pick(free).claim.name, from: from!.name, to: to!.name };
}

/** The pod of the claim (scheduled by `add`) deleted and created again on the other node. */
export function moveOf(cluster: FaultCluster, move: ExclusiveMove): Change {
  const pod = cluster.pods.find((p) => p.claims[0] === move.claim);
  return pod ? { kind: 'move', pod: pod.name, to: move.to } : { kind: 'none' };
}
