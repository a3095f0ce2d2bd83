/**
 * Taint-based eviction as Kubernetes does it by default: every pod tolerates the `not-ready` and
 * `unreachable` NoExecute taints for 300 s, then is evicted; its owner recreates it (same claim)
 * on a Ready node when there is one. So a dead node's volumes become unneeded while still mounted
 * there, and the controller's maxWaitForUnmount clock starts the moment the pods go.
 */
import type { KubeNode } from '../../lambda/core/kube.js';
import type { GenNode, GenPod } from '../../sandbox/generate/model.js';
import type { Random } from '../../sandbox/generate/random.js';
import type { FaultCluster } from './fault-cluster.js';
import type { World } from './rig.js';

/** Upstream's default `tolerationSeconds` for node.kubernetes.io/not-ready and /unreachable. */
export const EVICTION_AFTER_MS = 300_000;

export interface PodMoves {
  remove(pod: GenPod): void;
  add(claim: string, node: GenNode, name: string): void;
}

/** Evicts the pods of nodes NotReady for at least EVICTION_AFTER_MS; returns how many went. */
export function evictFromNotReady(world: World, cluster: FaultCluster, random: Random, moves: PodMoves): number {
  const now = world.clock.now();
  const expired = new Set(
    (world.kube.list('Node') as KubeNode[])
      .filter((node) => {
        const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
        return ready?.status === 'False' && now - new Date(ready.lastTransitionTime ?? now).getTime() >= EVICTION_AFTER_MS;
      })
      .map((node) => node.metadata.name),
  );
  const evicted = cluster.pods.filter((pod) => expired.has(pod.nodeName));
  const ready = cluster.nodes.filter(
    (n) => !expired.has(n.name) && ![cluster.notReady, cluster.deleted, cluster.terminated].some((s) => s.has(n.name)),
  );
  for (const pod of evicted) {
    moves.remove(pod);
    if (ready.length > 0) moves.add(pod.claims[0] as string, random.pick(ready), pod.name);
  }
  return evicted.length;
}
