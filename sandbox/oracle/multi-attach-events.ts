/**
 * The user's side of invariant 1: a scheduled pod whose exclusive volume another node holds (EC2
 * has it attached there, for a scheduled pod there) waits, and is told why with upstream's
 * Multi-Attach error (the reconciler's reportMultiAttachError: a `FailedAttachVolume` Warning on
 * the waiting pod, `Multi-Attach error for volume "<pv>" …`). A refusal only the attach lock makes
 * leaves the pod without it. Judged once the clean full passes have run, so no fault excuses it.
 */
import type { KubePod, KubePvc } from '../../lambda/core/kube.js';
import type { Violation } from './checks.js';
import { nodeOfInstance } from './checks.js';
import type { Truth } from './truth.js';

/** The fields of a core/v1 Event this check reads. */
export interface PodEvent {
  type?: string;
  reason?: string;
  message?: string;
  involvedObject?: { kind?: string; namespace?: string; name?: string; uid?: string };
}

/** What the API server holds that the check reads, besides ground truth. */
export interface PodSide {
  pods: KubePod[];
  claims: KubePvc[];
  events: PodEvent[];
}

const RUNNING = 'running';

export function unwarnedMultiAttach(truth: Truth, side: PodSide): Violation[] {
  return truth.desired.flatMap((pair) => {
    const node = truth.nodes.get(pair.nodeName);
    if (!truth.exclusive.has(pair.volumeId) || !node?.ready || truth.instanceStates.get(node.instanceId ?? '') !== RUNNING) return [];
    const holders = truth.attachments
      .filter((a) => a.volumeId === pair.volumeId && a.state === 'attached' && a.instanceId !== node.instanceId)
      .map((a) => nodeOfInstance(truth, a.instanceId)?.name)
      .filter((name) => name !== undefined && truth.desired.some((p) => p.volumeId === pair.volumeId && p.nodeName === name));
    if (holders.length === 0) return [];
    return waitingPods(side, pair.nodeName, pair.pvName).map((pod) => ({
      invariant: 1 as const,
      message: `pod ${pod} on ${pair.nodeName} waits for ${pair.volumeId} (RWO, attached to ${holders.join(', ')}) without a Multi-Attach error event`,
    }));
  });
}

/** The pods on the node that use the PV and have no Multi-Attach warning about it. */
function waitingPods({ pods, claims, events }: PodSide, nodeName: string, pvName: string): string[] {
  const boundTo = new Map(claims.map((c) => [`${c.metadata.namespace}/${c.metadata.name}`, c.spec?.volumeName]));
  const usesPv = (pod: KubePod) =>
    (pod.spec?.volumes ?? []).some((v) => boundTo.get(`${pod.metadata.namespace}/${v.persistentVolumeClaim?.claimName}`) === pvName);
  const warned = (pod: KubePod) =>
    events.some(
      (e) =>
        e.type === 'Warning' &&
        e.reason === 'FailedAttachVolume' &&
        e.involvedObject?.kind === 'Pod' &&
        e.involvedObject.uid === pod.metadata.uid &&
        (e.message ?? '').startsWith(`Multi-Attach error for volume ${JSON.stringify(pvName)}`),
    );
  return pods
    .filter((pod) => pod.spec?.nodeName === nodeName && usesPv(pod) && !pod.metadata.deletionTimestamp && !warned(pod))
    .map((pod) => `${pod.metadata.namespace}/${pod.metadata.name}`);
}
