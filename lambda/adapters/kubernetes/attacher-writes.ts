/**
 * The writes attacher mode makes, as external-attacher makes them: our finalizer on the PV and, in
 * one patch, on the VolumeAttachment with the node-id annotation (before EC2 is called); status
 * through `volumeattachments/status` (a merge patch: only the fields named change); the VA
 * finalizer removed after a detach. Each read-modify-write is guarded (test op) and retried on a
 * stale read; an object that is gone is an answer, not an error.
 *
 * The adds may start from the pass's own read of the object instead of a GET (the event path
 * read the PV and the VolumeAttachment moments before): that patch also tests the read's
 * resourceVersion, so it lands only on the object exactly as read, and any change since (a
 * deletion mark included) fails it and sends us through a fresh read. A read that asks for no
 * patch at all is confirmed by a fresh one.
 */
import type { CoreV1Api, StorageV1Api } from '@kubernetes/client-node';
import type { ObjectMeta } from '../../core/kube.js';
import { ATTACHER_FINALIZER, NODE_ID_ANNOTATION } from '../../core/attacher/names.js';
import type { VaStatusPatch } from '../../core/attacher/status.js';
import type { InstanceId } from '../../core/types.js';
import type { ClaimOutcome, PvFinalizerOutcome, StatusOutcome } from '../../ports/cluster.js';
import { describeApiError, isConflict, isNotFound } from './api-errors.js';
import { addFinalizerOps, isStale, jsonPatch, removeFinalizerOps, setAnnotationOps, type JsonPatchOp } from './finalizer-patch.js';
import { mergePatch } from './merge-patch.js';
import { getOrUndefined } from './reads.js';

export interface AttacherWriter {
  core: CoreV1Api;
  storage: StorageV1Api;
  maxConflictRetries: number;
}

interface Meta {
  resourceVersion?: string;
  finalizers?: string[];
  annotations?: Record<string, string>;
  deletionTimestamp?: Date | string | null;
}

/** The first attempt's ops from the pass's read, pinned to its resourceVersion; undefined: read afresh. */
function fromPassRead(read: Meta | undefined, decide: (meta: Meta) => JsonPatchOp[] | string): JsonPatchOp[] | undefined {
  if (read?.resourceVersion === undefined) return undefined;
  const ops = decide(read);
  if (!Array.isArray(ops)) return undefined;
  const pinned = ops.some((op) => op.op === 'test' && op.path === '/metadata/resourceVersion');
  return pinned ? ops : [{ op: 'test', path: '/metadata/resourceVersion', value: read.resourceVersion }, ...ops];
}

async function readMeta(what: string, read: () => Promise<{ metadata?: Meta } | undefined>): Promise<Meta | undefined> {
  const object = await getOrUndefined(what, read);
  return object === undefined ? undefined : (object.metadata ?? {});
}

/**
 * Reads, decides the ops (or an answer), patches; again on a stale read. `decide` returns the ops
 * to send, or the outcome when nothing needs sending.
 */
async function guardedPatch<O extends string>(
  w: AttacherWriter,
  what: string,
  read: () => Promise<{ metadata?: Meta } | undefined>,
  decide: (meta: Meta | undefined) => JsonPatchOp[] | O,
  patch: (ops: JsonPatchOp[]) => Promise<unknown>,
  done: O,
  passRead?: Meta,
): Promise<O> {
  let pinned = fromPassRead(passRead, decide);
  // The pass's read is an attempt of its own: a stale one leaves every fresh attempt to the retries.
  for (let attempt = pinned === undefined ? 0 : -1; attempt <= w.maxConflictRetries; attempt++) {
    const ops = pinned ?? decide(await readMeta(what, read));
    pinned = undefined;
    if (!Array.isArray(ops)) return ops;
    try {
      await patch(ops);
      return done;
    } catch (error) {
      if (isNotFound(error)) return decide(undefined) as O;
      if (!isStale(error)) throw new Error(`patching ${what} failed: ${describeApiError(error)}`, { cause: error });
    }
  }
  throw new Error(`${what}: still changing after ${w.maxConflictRetries + 1} attempts`);
}

export function addPvFinalizer(w: AttacherWriter, name: string, passRead?: ObjectMeta): Promise<PvFinalizerOutcome> {
  return guardedPatch<PvFinalizerOutcome>(
    w,
    `persistentvolume ${name}`,
    () => w.core.readPersistentVolume({ name }),
    (meta) => {
      if (meta === undefined) return 'gone';
      if (meta.deletionTimestamp) return 'deleting';
      return (meta.finalizers ?? []).includes(ATTACHER_FINALIZER)
        ? 'present'
        : addFinalizerOps(meta.finalizers, ATTACHER_FINALIZER, meta.resourceVersion);
    },
    (ops) => w.core.patchPersistentVolume({ name, body: ops }, jsonPatch),
    'added',
    passRead,
  );
}

/** Takes our finalizer off whatever `read` returns; gone, or already without it, is done. */
async function removeOurFinalizer(
  w: AttacherWriter,
  what: string,
  read: () => Promise<{ metadata?: Meta } | undefined>,
  patch: (ops: JsonPatchOp[]) => Promise<unknown>,
): Promise<void> {
  const decide = (meta: Meta | undefined) => {
    const ops = meta === undefined ? [] : removeFinalizerOps(meta.finalizers, ATTACHER_FINALIZER);
    return ops.length === 0 ? ('done' as const) : ops;
  };
  await guardedPatch<'done'>(w, what, read, decide, patch, 'done');
}

export function removePvFinalizer(w: AttacherWriter, name: string): Promise<void> {
  return removeOurFinalizer(
    w,
    `persistentvolume ${name}`,
    () => w.core.readPersistentVolume({ name }),
    (ops) => w.core.patchPersistentVolume({ name, body: ops }, jsonPatch),
  );
}

/** Our finalizer and the instance annotation in one patch; a deleting object gets no new finalizer. */
export function claimVolumeAttachment(
  w: AttacherWriter,
  name: string,
  instanceId: InstanceId,
  passRead?: ObjectMeta,
): Promise<ClaimOutcome> {
  return guardedPatch<ClaimOutcome>(
    w,
    `volumeattachment ${name}`,
    () => w.storage.readVolumeAttachment({ name }),
    (meta) => {
      if (meta === undefined) return 'gone';
      const finalizer = (meta.finalizers ?? []).includes(ATTACHER_FINALIZER)
        ? []
        : addFinalizerOps(meta.finalizers, ATTACHER_FINALIZER, meta.resourceVersion);
      if (meta.deletionTimestamp) return 'deleting';
      const ops = [...finalizer, ...setAnnotationOps(meta.annotations, NODE_ID_ANNOTATION, instanceId)];
      return ops.length === 0 ? 'claimed' : ops;
    },
    (ops) => w.storage.patchVolumeAttachment({ name, body: ops }, jsonPatch),
    'claimed',
    passRead,
  );
}

/** Our finalizer off the object: kcm's delete then completes. Gone or absent is done. */
export function releaseVolumeAttachment(w: AttacherWriter, name: string): Promise<void> {
  return removeOurFinalizer(
    w,
    `volumeattachment ${name}`,
    () => w.storage.readVolumeAttachment({ name }),
    (ops) => w.storage.patchVolumeAttachment({ name, body: ops }, jsonPatch),
  );
}

/**
 * A merge patch of the status subresource; `gone` when the object no longer exists (fine after a
 * release). `attached: true` lands only on an object not being deleted: the patch carries the
 * resourceVersion it was decided on, so a delete in between makes it a 409 and the re-read answers
 * `deleting` (kcm waits for such an object to disappear; it must never read as attached).
 */
export async function patchVolumeAttachmentStatus(w: AttacherWriter, name: string, status: VaStatusPatch): Promise<StatusOutcome> {
  const what = `volumeattachments/${name}/status`;
  const send = (body: object) => sendStatus(what, () => w.storage.patchVolumeAttachmentStatus({ name, body }, mergePatch));
  if (status.attached !== true) return send({ status });
  for (let attempt = 0; attempt <= w.maxConflictRetries; attempt++) {
    const va = await getOrUndefined(`volumeattachment ${name}`, () => w.storage.readVolumeAttachment({ name }));
    if (va === undefined) return 'gone';
    if (va.metadata?.deletionTimestamp) return 'deleting';
    try {
      return await send({ metadata: { resourceVersion: va.metadata?.resourceVersion }, status });
    } catch (error) {
      if (!(error instanceof Error && isConflict(error.cause))) throw error;
    }
  }
  throw new Error(`${what}: still changing after ${w.maxConflictRetries + 1} attempts`);
}

/** `gone` on a 404; any other failure names the write (its cause is the API error). */
async function sendStatus(what: string, send: () => Promise<unknown>): Promise<'patched' | 'gone'> {
  try {
    await send();
    return 'patched';
  } catch (error) {
    if (isNotFound(error)) return 'gone';
    throw new Error(`patching ${what} failed: ${describeApiError(error)}`, { cause: error });
  }
}
