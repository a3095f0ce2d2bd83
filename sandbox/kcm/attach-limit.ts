/**
 * The kubelet's answer to a full node (kubernetes PR #132933, with KEP-4876's `errorCode`): when a
 * pod's attach-and-mount wait (2 min 3 s) runs out and a VolumeAttachment it waits for reports
 * `attachError.errorCode` 8 (ResourceExhausted), the kubelet fails the pod so that its owner can
 * replace it on another node. kcm itself treats that error like any other (it keeps retrying).
 * Played between steps like `runKubelets`, on the sandbox clock.
 */
import { volumeAttachmentName } from '../../lambda/adapters/kubernetes/volume-attachment-name.js';
import type { Clock } from '../../lambda/clock.js';
import type { KubeNode, KubePod, KubePv, KubePvc } from '../../lambda/core/kube.js';
import type { Va, KcmKube } from './context.js';
import { volumesToAttach } from './desired.js';

/** podAttachAndMountTimeout in the kubelet's volume manager. */
export const POD_ATTACH_AND_MOUNT_TIMEOUT_MS = 2 * 60_000 + 3_000;
const RESOURCE_EXHAUSTED = 8;

export interface AttachLimitKubelet {
  /** Returns the pods it failed (`namespace/name`). */
  step(): string[];
}

export function createAttachLimitKubelet(kube: Pick<KcmKube, 'list' | 'kubelet'>, clock: Pick<Clock, 'now'>): AttachLimitKubelet {
  const waitingSince = new Map<string, number>();
  return {
    step() {
      const nodes = kube.list('Node') as KubeNode[];
      const readyNodes = new Set(
        nodes
          .filter((n) => (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'))
          .map((n) => n.metadata.name),
      );
      const vas = new Map((kube.list('VolumeAttachment') as Va[]).map((va) => [va.metadata.name, va]));
      const desired = volumesToAttach(
        nodes,
        kube.list('Pod') as KubePod[],
        kube.list('PersistentVolumeClaim') as KubePvc[],
        kube.list('PersistentVolume') as KubePv[],
      );
      const unattached = new Map<string, { namespace: string; name: string; exhausted: boolean }>();
      for (const volume of desired) {
        if (!readyNodes.has(volume.nodeName)) continue;
        const va = vas.get(volumeAttachmentName(volume.volumeHandle, volume.nodeName));
        if (va?.status?.attached === true) continue;
        const exhausted = va?.status?.attachError?.errorCode === RESOURCE_EXHAUSTED;
        for (const pod of volume.pods) {
          const seen = unattached.get(pod.uid);
          unattached.set(pod.uid, { namespace: pod.namespace, name: pod.name, exhausted: exhausted || seen?.exhausted === true });
        }
      }
      for (const uid of waitingSince.keys()) if (!unattached.has(uid)) waitingSince.delete(uid);
      const failed: string[] = [];
      for (const [uid, pod] of unattached) {
        const since = waitingSince.get(uid) ?? clock.now();
        waitingSince.set(uid, since);
        if (!pod.exhausted || clock.now() - since < POD_ATTACH_AND_MOUNT_TIMEOUT_MS) continue;
        kube.kubelet.setPodPhase(pod.namespace, pod.name, 'Failed');
        waitingSince.delete(uid);
        failed.push(`${pod.namespace}/${pod.name}`);
      }
      return failed;
    },
  };
}
