/**
 * Which pods count for the desired state. Termination follows upstream's IsPodTerminated
 * (pkg/volume/util): phase Failed or Succeeded, or deletionTimestamp set while no init, app or
 * ephemeral container is running. A status without a recorded state counts as running, as in Go
 * where the empty state has neither `waiting` nor `terminated`.
 */
import { compareText } from './compare.js';
import type { KubeContainerStatus, KubePod } from './kube.js';
import type { PodRef } from './types.js';

function notRunning(statuses: KubeContainerStatus[] | null | undefined): boolean {
  return (statuses ?? []).every((status) => Boolean(status.state?.terminated) || Boolean(status.state?.waiting));
}

export function isPodTerminated(pod: KubePod): boolean {
  const status = pod.status ?? {};
  if (status.phase === 'Failed' || status.phase === 'Succeeded') return true;
  return (
    Boolean(pod.metadata.deletionTimestamp) &&
    notRunning(status.initContainerStatuses) &&
    notRunning(status.containerStatuses) &&
    notRunning(status.ephemeralContainerStatuses)
  );
}

/** The pod's reference, or undefined when it lacks a name or namespace (a malformed object). */
export function podRefOf(pod: KubePod): PodRef | undefined {
  const { name, namespace, uid } = pod.metadata;
  if (!name || !namespace) return undefined;
  return { namespace, name, uid: uid ?? '' };
}

export function podKey(pod: PodRef): string {
  return `${pod.namespace}/${pod.name}`;
}

export function comparePods(a: PodRef, b: PodRef): number {
  return compareText(podKey(a), podKey(b));
}
