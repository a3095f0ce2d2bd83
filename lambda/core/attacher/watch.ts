/**
 * Attacher mode: which watched VolumeAttachment changes ask for a pass, exactly when
 * external-attacher's handler would act (csi_handler.go): a live object of ours not yet
 * `attached` (syncAttach; an attached one is "nothing to be done"), or one being deleted that
 * carries our finalizer (syncDetach; without it, "already detached"). The object alone decides,
 * so a watcher that resumes decides as one that saw every change.
 */
import type { KubeVolumeAttachment } from '../kube.js';
import { ATTACHER_FINALIZER } from './names.js';
import { isOurs } from './targets.js';

export type VaChange = 'added' | 'modified' | 'deleted';

export function volumeAttachmentAsks(change: VaChange, va: KubeVolumeAttachment): 'attach' | 'detach' | undefined {
  if (change === 'deleted' || !isOurs(va)) return undefined;
  if (va.metadata.deletionTimestamp) return (va.metadata.finalizers ?? []).includes(ATTACHER_FINALIZER) ? 'detach' : undefined;
  return va.status?.attached === true ? undefined : 'attach';
}
