/**
 * What attacher mode writes on a VolumeAttachment, field for field as external-attacher does
 * (`util.go` markAsAttached / markAsDetached, `csi_handler.go` saveAttachError / saveDetachError),
 * and what the end of a pass must correct. The safety rule (DESIGN §11, 7): an object says
 * `attached: true` only for an attachment our records hold as `attached` on its instance and that
 * EC2, when asked this pass, still shows there.
 */
import type { KubePv, KubeVolumeAttachment } from '../kube.js';
import { ec2ShowsAttachment } from '../observed.js';
import { hasOperationOn } from '../operations.js';
import { reportableDevice } from '../reportable.js';
import type { VolumeObservation, VolumeRecord } from '../types.js';
import { ATTACHER_FINALIZER, RESOURCE_EXHAUSTED } from './names.js';
import type { VaTarget } from './targets.js';

interface VolumeError {
  time: string;
  message: string;
  errorCode?: number;
}

/** A merge patch of `volumeattachments/status`: only the fields named change. */
export interface VaStatusPatch {
  attached?: boolean;
  attachmentMetadata?: Record<string, string> | null;
  attachError?: VolumeError | null;
  detachError?: VolumeError | null;
}

/** The EBS node plugin refuses to stage a volume without `devicePath` in the attachment metadata. */
export function attachedStatus(devicePath: string): VaStatusPatch {
  return { attached: true, attachmentMetadata: { devicePath }, attachError: null };
}

/**
 * `attached` stays as it is. `errorCode`: the driver's gRPC code as the sidecar keeps it, 8
 * (ResourceExhausted) when the node has no attachment left, 3 (InvalidArgument) for a capability it refuses.
 */
export function attachErrorStatus(message: string, now: number, errorCode?: number): VaStatusPatch {
  const error: VolumeError = { time: new Date(now).toISOString(), message };
  return { attachError: errorCode === undefined ? error : { ...error, errorCode } };
}

/** The attachment limit of the node is reached: ResourceExhausted, which the kubelet reads (errorCode 8). */
export function limitReachedStatus(message: string, now: number): VaStatusPatch {
  return attachErrorStatus(message, now, RESOURCE_EXHAUSTED);
}

export function detachedStatus(): VaStatusPatch {
  return { attached: false, attachmentMetadata: null, detachError: null };
}

export function detachErrorStatus(message: string, now: number): VaStatusPatch {
  return { detachError: { time: new Date(now).toISOString(), message } };
}

function saysAttached(va: KubeVolumeAttachment, devicePath: string): boolean {
  const status = va.status;
  return status?.attached === true && status.attachmentMetadata?.devicePath === devicePath && !status.attachError;
}

/**
 * The status a live target needs at the end of a pass, if any: its resolution error, the
 * attachment our records and EC2 agree on, or `attached: false` where it claims one they do not
 * show (the pass then attaches again, as upstream re-attaches).
 */
export function liveStatusCorrection(
  target: VaTarget,
  record: VolumeRecord | undefined,
  observation: VolumeObservation | undefined,
  now: number,
): VaStatusPatch | undefined {
  if (target.deleting) return undefined;
  if (target.error !== undefined)
    return target.va.status?.attachError?.message === target.error ? undefined : attachErrorStatus(target.error, now, target.errorCode);
  const device = reportableDevice(record?.attachments[target.nodeName], { instanceId: target.instanceId, observation });
  if (device !== undefined) return saysAttached(target.va, device) ? undefined : attachedStatus(device);
  return target.va.status?.attached === true ? { attached: false, attachmentMetadata: null } : undefined;
}

/**
 * A deleting target with our finalizer that holds no attachment of ours and no operation on its
 * pair may be let go once EC2, asked this pass, shows the volume nowhere on its instance (e.g. an
 * attach that died between our finalizer and its intent). Otherwise the plan's detach, or a later
 * pass, settles it.
 */
export function releasableWithoutDetach(
  target: VaTarget,
  record: VolumeRecord | undefined,
  observation: VolumeObservation | undefined,
): boolean {
  if (!target.deleting || !target.finalized || target.instanceId === undefined || observation === undefined) return false;
  if (record?.attachments[target.nodeName] !== undefined) return false;
  if (hasOperationOn(record, target.nodeName)) return false;
  return !ec2ShowsAttachment({ instanceId: target.instanceId }, observation);
}

/** PVs being deleted that still carry our finalizer while no VolumeAttachment (of any attacher) names them. */
export function pvFinalizersToRemove(pvs: readonly KubePv[], vas: readonly KubeVolumeAttachment[]): KubePv[] {
  const named = new Set(vas.flatMap((va) => va.spec.source.persistentVolumeName ?? []));
  return pvs.filter(
    (pv) =>
      Boolean(pv.metadata.deletionTimestamp) &&
      (pv.metadata.finalizers ?? []).includes(ATTACHER_FINALIZER) &&
      !named.has(pv.metadata.name ?? ''),
  );
}
