/**
 * Attacher mode's side of the watcher: kcm's VolumeAttachments are the whole desired state, and a
 * change to one is the earliest signal of both an attach (kcm created it) and a detach (kcm is
 * deleting it; kcm waited for the unmount first). Each change that external-attacher would act on
 * asks for that object's targeted pass. Nothing else is watched: PV finalizers and VolumeAttachments
 * waiting for their node's CSINode are the full pass's, within a minute, as before.
 */
import { volumeAttachmentAsks } from '../../core/attacher/watch.js';
import type { KubeVolumeAttachment } from '../../core/kube.js';
import type { WatchMode } from '../watch/types.js';

export const attacherWatch: WatchMode = {
  kinds: ['volumeattachments'],
  targetOf(_kind, change, object) {
    const va = object as KubeVolumeAttachment;
    const name = va.metadata.name;
    return name && volumeAttachmentAsks(change, va) !== undefined ? { kind: 'volumeAttachment', name } : undefined;
  },
};
