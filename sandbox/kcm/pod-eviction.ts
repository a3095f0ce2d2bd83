/**
 * The two kcm controllers that act on the pods of an out-of-service node (KEP-2268, "non-graceful
 * node shutdown"), in upstream's order:
 * - taint eviction (pkg/controller/tainteviction): a pod that does not tolerate a `NoExecute`
 *   taint of its node is deleted at once, gracefully; with the kubelet gone it stays Terminating;
 * - pod GC's gcTerminating (pkg/controller/podgc, every 20 s): a terminating pod on a node that is
 *   not Ready **and** carries `node.kubernetes.io/out-of-service` is marked Failed and deleted
 *   with grace period 0. Only then does the attach/detach controller let go of its volumes.
 * The node turns NotReady when the node lifecycle controller misses its heartbeats for
 * `--node-monitor-grace-period` (40 s; recent releases 50 s): played by the caller (`setReady`).
 */
import type { Clock } from '../../lambda/clock.js';
import type { KubeNode, KubePod, KubeTaint } from '../../lambda/core/kube.js';
import { outOfServiceTaint } from '../kube/kubelet.js';
import type { KcmKube } from './context.js';

/** gcCheckPeriod of pod GC. */
export const POD_GC_PERIOD_MS = 20_000;

interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

/** v1 Toleration.ToleratesTaint: empty key with Exists matches every key; empty effect every effect. */
function tolerates(toleration: Toleration, taint: KubeTaint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  if (!toleration.key && toleration.operator !== 'Exists') return false;
  return toleration.operator === 'Exists' || (toleration.value ?? '') === (taint.value ?? '');
}

function tolerationsOf(pod: KubePod): Toleration[] {
  return (pod.spec as { tolerations?: Toleration[] | null } | undefined)?.tolerations ?? [];
}

const ready = (node: KubeNode) => (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
const podKey = (pod: KubePod) => ({ namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name ?? '' });

/** Returns the pods deleted (`namespace/name`). */
export function evictForNoExecute(kube: Pick<KcmKube, 'kubelet'>, nodes: Map<string, KubeNode>, pods: readonly KubePod[]): string[] {
  const evicted: string[] = [];
  for (const pod of pods) {
    const node = nodes.get(pod.spec?.nodeName ?? '');
    if (node === undefined || pod.metadata.deletionTimestamp) continue;
    const noExecute = (node.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute');
    if (!noExecute.some((taint) => !tolerationsOf(pod).some((t) => tolerates(t, taint)))) continue;
    const { namespace, name } = podKey(pod);
    kube.kubelet.deletePod(namespace, name, { graceful: true });
    evicted.push(`${namespace}/${name}`);
  }
  return evicted;
}

/** Returns the pods force-deleted (`namespace/name`). */
export function collectTerminating(kube: Pick<KcmKube, 'kubelet'>, nodes: Map<string, KubeNode>, pods: readonly KubePod[]): string[] {
  const collected: string[] = [];
  for (const pod of pods) {
    const node = nodes.get(pod.spec?.nodeName ?? '');
    if (!pod.metadata.deletionTimestamp || node === undefined || ready(node)) continue;
    if (!(node.spec?.taints ?? []).some((t) => t.key === outOfServiceTaint)) continue;
    const { namespace, name } = podKey(pod);
    const phase = pod.status?.phase;
    if (phase !== 'Succeeded' && phase !== 'Failed') kube.kubelet.setPodPhase(namespace, name, 'Failed');
    kube.kubelet.deletePod(namespace, name);
    collected.push(`${namespace}/${name}`);
  }
  return collected;
}

/** Taint eviction every round, pod GC every POD_GC_PERIOD_MS: kcm's own, or alone where kcm's attach/detach controller is off (controller mode). */
export function createPodControllers(kube: Pick<KcmKube, 'list' | 'kubelet'>, clock: Pick<Clock, 'now'>) {
  let lastGc = clock.now();
  return (): { evicted: string[]; collected: string[] } => {
    const gcDue = clock.now() - lastGc >= POD_GC_PERIOD_MS;
    if (gcDue) lastGc = clock.now();
    const nodes = new Map((kube.list('Node') as KubeNode[]).map((n) => [n.metadata.name ?? '', n]));
    const evicted = evictForNoExecute(kube, nodes, kube.list('Pod') as KubePod[]);
    return { evicted, collected: gcDue ? collectTerminating(kube, nodes, kube.list('Pod') as KubePod[]) : [] };
  };
}
