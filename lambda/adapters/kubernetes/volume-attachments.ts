/**
 * VolumeAttachment objects for CSI volumes, written the way the attach/detach controller and
 * the external-attacher together leave them: the object the kubelet waits on
 * (`csi-<sha256>`), our finalizer while the volume may be attached, and a status with
 * `attached`, the device path in `attachmentMetadata`, and attach/detach errors.
 */
import type { StorageV1Api, V1VolumeAttachment } from '@kubernetes/client-node';
import { ATTACHER_FINALIZER } from '../../core/attacher/names.js';
import { EBS_CSI_DRIVER } from '../../core/types.js';
import type { VolumeAttachmentRef, VolumeAttachmentStatus } from '../../ports/cluster.js';
import { describeApiError, isAlreadyExists, isConflict, isNotFound } from './api-errors.js';
import { mergePatch } from './merge-patch.js';
import { getOrUndefined } from './reads.js';
import { volumeAttachmentName } from './volume-attachment-name.js';

/** The key the EBS CSI driver's ControllerPublishVolume returns and its node plugin reads. */
const DEVICE_PATH_KEY = 'devicePath';

export interface VolumeAttachmentWriter {
  storage: StorageV1Api;
  now: () => Date;
  maxConflictRetries: number;
}

function volumeAttachmentSource(ref: VolumeAttachmentRef): V1VolumeAttachment['spec']['source'] {
  if (ref.pvName !== undefined) return { persistentVolumeName: ref.pvName };
  // Inline volumes carry their spec translated to CSI, as csi-translation-lib does for in-tree EBS.
  return { inlineVolumeSpec: { csi: { driver: EBS_CSI_DRIVER, volumeHandle: ref.volumeId }, accessModes: ['ReadWriteOnce'] } };
}

/** The `status` body for a merge patch: every field named, so stale ones are cleared. */
function statusPatch(status: VolumeAttachmentStatus, now: Date): Record<string, unknown> {
  const error = (message: string | undefined) => (message === undefined ? null : { time: now.toISOString(), message });
  if (status.attached) {
    return {
      attached: true,
      attachmentMetadata: { [DEVICE_PATH_KEY]: status.devicePath },
      attachError: null,
      detachError: error(status.detachError),
    };
  }
  return { attached: false, attachmentMetadata: null, attachError: error(status.attachError), detachError: error(status.detachError) };
}

/** True when the object's status already says what `status` says (error times aside; no status = not attached). */
function statusMatches(current: V1VolumeAttachment['status'], status: VolumeAttachmentStatus): boolean {
  if (current === undefined) return !status.attached && status.attachError === undefined && status.detachError === undefined;
  if (status.attached) {
    return (
      current.attached &&
      current.attachmentMetadata?.[DEVICE_PATH_KEY] === status.devicePath &&
      !current.attachError &&
      current.detachError?.message === status.detachError
    );
  }
  return (
    !current.attached &&
    Object.keys(current.attachmentMetadata ?? {}).length === 0 &&
    current.attachError?.message === status.attachError &&
    current.detachError?.message === status.detachError
  );
}

export async function upsertVolumeAttachment(
  w: VolumeAttachmentWriter,
  ref: VolumeAttachmentRef,
  status: VolumeAttachmentStatus,
): Promise<void> {
  const name = volumeAttachmentName(ref.volumeId, ref.nodeName);
  const va = await ensureVolumeAttachment(w, name, ref);
  if (statusMatches(va.status, status)) return;
  try {
    await w.storage.patchVolumeAttachmentStatus({ name, body: { status: statusPatch(status, w.now()) } }, mergePatch);
  } catch (error) {
    throw new Error(`patching volumeattachments/${name}/status failed: ${describeApiError(error)}`, { cause: error });
  }
}

/** Creates the object with our finalizer, or adds the finalizer to the one that exists. */
async function ensureVolumeAttachment(w: VolumeAttachmentWriter, name: string, ref: VolumeAttachmentRef): Promise<V1VolumeAttachment> {
  for (let attempt = 0; attempt <= w.maxConflictRetries; attempt++) {
    try {
      return await w.storage.createVolumeAttachment({
        body: {
          apiVersion: 'storage.k8s.io/v1',
          kind: 'VolumeAttachment',
          metadata: { name, finalizers: [ATTACHER_FINALIZER] },
          spec: { attacher: EBS_CSI_DRIVER, nodeName: ref.nodeName, source: volumeAttachmentSource(ref) },
        },
      });
    } catch (error) {
      if (!isAlreadyExists(error))
        throw new Error(`creating volumeattachment ${name} failed: ${describeApiError(error)}`, { cause: error });
    }
    const existing = await getOrUndefined(`volumeattachment ${name}`, () => w.storage.readVolumeAttachment({ name }));
    if (existing === undefined) continue; // deleted since our create: create again
    const finalizers = existing.metadata?.finalizers ?? [];
    if (finalizers.includes(ATTACHER_FINALIZER)) return existing;
    const patched = await patchFinalizers(w, existing, [...finalizers, ATTACHER_FINALIZER]);
    if (patched !== undefined) return patched;
  }
  throw new Error(`volumeattachment ${name}: still conflicting after ${w.maxConflictRetries + 1} attempts`);
}

/** Finalizers are a plain list in a merge patch: send the whole list, guarded by resourceVersion. Undefined on conflict or when gone. */
async function patchFinalizers(
  w: VolumeAttachmentWriter,
  va: V1VolumeAttachment,
  finalizers: string[],
): Promise<V1VolumeAttachment | undefined> {
  const name = va.metadata?.name ?? '';
  const body = { metadata: { resourceVersion: va.metadata?.resourceVersion, finalizers } };
  try {
    return await w.storage.patchVolumeAttachment({ name, body }, mergePatch);
  } catch (error) {
    if (isConflict(error) || isNotFound(error)) return undefined;
    throw new Error(`patching volumeattachment ${name} finalizers failed: ${describeApiError(error)}`, { cause: error });
  }
}

/** Clears the status, removes our finalizer, deletes. Gone at any step is success. */
export async function deleteVolumeAttachment(w: VolumeAttachmentWriter, ref: VolumeAttachmentRef): Promise<void> {
  const name = volumeAttachmentName(ref.volumeId, ref.nodeName);
  for (let attempt = 0; attempt <= w.maxConflictRetries; attempt++) {
    let va = await getOrUndefined(`volumeattachment ${name}`, () => w.storage.readVolumeAttachment({ name }));
    if (va === undefined) return;
    va = await clearStatus(w, va);
    if (va === undefined) return;
    const finalizers = va.metadata?.finalizers ?? [];
    if (finalizers.includes(ATTACHER_FINALIZER)) {
      const patched = await patchFinalizers(
        w,
        va,
        finalizers.filter((f) => f !== ATTACHER_FINALIZER),
      );
      if (patched === undefined) continue; // changed or gone: look again
      va = patched;
    }
    await deleteExactly(w, va);
    return;
  }
  throw new Error(`volumeattachment ${name}: still conflicting after ${w.maxConflictRetries + 1} attempts`);
}

async function clearStatus(w: VolumeAttachmentWriter, va: V1VolumeAttachment): Promise<V1VolumeAttachment | undefined> {
  const name = va.metadata?.name ?? '';
  if (statusMatches(va.status, { attached: false })) return va;
  try {
    return await w.storage.patchVolumeAttachmentStatus({ name, body: { status: statusPatch({ attached: false }, w.now()) } }, mergePatch);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw new Error(`clearing volumeattachments/${name}/status failed: ${describeApiError(error)}`, { cause: error });
  }
}

/** Deletes this object only (uid precondition): a VA re-created meanwhile for a new attach stays. */
async function deleteExactly(w: VolumeAttachmentWriter, va: V1VolumeAttachment): Promise<void> {
  const name = va.metadata?.name ?? '';
  const uid = va.metadata?.uid;
  try {
    await w.storage.deleteVolumeAttachment({ name, body: uid === undefined ? undefined : { preconditions: { uid } } });
  } catch (error) {
    if (isNotFound(error) || isConflict(error)) return;
    throw new Error(`deleting volumeattachment ${name} failed: ${describeApiError(error)}`, { cause: error });
  }
}
