/**
 * Controller mode: which watched changes ask for a pass (DESIGN §9, Watcher). The rule reads the
 * object alone, never an earlier copy, so a watcher that resumes (and has seen no earlier copy)
 * decides as one that saw every change: an object in its settled state asks for nothing.
 * - A pod asks for its own pass while it is scheduled and not yet running: its volumes must be
 *   attached before the kubelet can start it (a running pod has them mounted already).
 * - A pod that is terminating, terminated or gone asks for its node's pass: its volumes may be
 *   detached there once unmounted (the pass starts the unmount timer of a node that is not Ready).
 * - A node asks for its pass when it lists a volume attached that its kubelet does not use
 *   (the unmount happened: a detach may be due), when it is not Ready or out of service, or gone.
 * Pods that use no claim and no EBS volume never ask for anything.
 */
import type { KubeNode, KubePod } from './kube.js';
import { MANAGED_ANNOTATION, OUT_OF_SERVICE_TAINT } from './nodes.js';
import { isPodTerminated } from './pods.js';
import type { NodeName } from './types.js';

export type WatchedChange = 'added' | 'modified' | 'deleted';

/** The pass a pod's change asks for: its own, its node's, or none. */
export type PodAsks = { pass: 'pod'; nodeName: NodeName } | { pass: 'node'; nodeName: NodeName } | undefined;

const usesVolumes = (pod: KubePod) =>
  (pod.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim ?? v.ephemeral ?? v.awsElasticBlockStore);

export function podAsks(change: WatchedChange, pod: KubePod): PodAsks {
  const nodeName = pod.spec?.nodeName;
  if (!nodeName || !usesVolumes(pod)) return undefined;
  if (change === 'deleted' || pod.metadata.deletionTimestamp || isPodTerminated(pod)) return { pass: 'node', nodeName };
  return pod.status?.phase === 'Running' ? undefined : { pass: 'pod', nodeName };
}

export function nodeAsks(change: WatchedChange, node: KubeNode): boolean {
  if (change === 'deleted') return true;
  if (node.metadata.annotations?.[MANAGED_ANNOTATION] === undefined) return false;
  const ready = (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  const outOfService = (node.spec?.taints ?? []).some((t) => t.key === OUT_OF_SERVICE_TAINT);
  const inUse = new Set(node.status?.volumesInUse ?? []);
  const unused = (node.status?.volumesAttached ?? []).some((v) => !inUse.has(v.name));
  return !ready || outOfService || unused;
}
