/**
 * Attaching as kcm's reconciler and CSI attacher do (reconciler.attachDesiredVolumes,
 * csi_attacher.Attach, verifyAttachmentStatus): create the VolumeAttachment (AlreadyExists is
 * fine), then wait for `status.attached`; an `attachError`, a VA being deleted or 2 minutes
 * without an answer fail the operation, which backs off and leaves the volume uncertain.
 */
import { EBS_CSI_DRIVER } from '../../lambda/core/types.js';
import { ApiError } from '../kube/status.js';
import { attachmentKey } from './actual.js';
import { CSI_WAIT_MS, vaNameOf, type KcmContext, type View } from './context.js';
import type { VolumeToAttach } from './desired.js';
import type { PendingOperation } from './operations.js';

function volumeMessage(prefix: string, volume: { specName: string }, suffix: string): string {
  return `${prefix} for volume ${JSON.stringify(volume.specName)} ${suffix}`;
}

/** reportMultiAttachError: each waiting pod learns which pods of its own namespace hold the volume. */
function reportMultiAttach(ctx: KcmContext, view: View, volume: VolumeToAttach, nodes: string[]): void {
  const holders = nodes.flatMap((node) => view.desired.get(attachmentKey(volume.uniqueName, node))?.pods ?? []);
  for (const pod of volume.pods) {
    const local = holders.filter((h) => h.namespace === pod.namespace).map((h) => h.name);
    const others = holders.length - local.length;
    let detail: string;
    if (holders.length === 0) detail = "Volume is already exclusively attached to one node and can't be attached to another";
    else if (local.length === 0) detail = `Volume is already used by ${others} pod(s) in different namespaces`;
    else
      detail = `Volume is already used by pod(s) ${local.join(', ')}${others > 0 ? ` and ${others} pod(s) in different namespaces` : ''}`;
    ctx.events.record(pod, 'Warning', 'FailedAttachVolume', volumeMessage('Multi-Attach error', volume, detail));
  }
}

export function startAttaches(ctx: KcmContext, view: View): void {
  for (const [key, volume] of view.desired) {
    const current = ctx.actual.get(volume.uniqueName, volume.nodeName);
    if (current?.confirmed) {
      ctx.actual.resetDetachRequest(volume.uniqueName, volume.nodeName);
      continue;
    }
    if (!volume.multiAttachAllowed) {
      if (ctx.operations.pendingOnVolume(volume.uniqueName)) continue;
      const elsewhere = ctx.actual.confirmedNodes(volume.uniqueName).filter((n) => n !== volume.nodeName);
      if (elsewhere.length > 0) {
        if (!ctx.multiAttachReported.has(key)) reportMultiAttach(ctx, view, volume, elsewhere);
        ctx.multiAttachReported.add(key);
        continue;
      }
    }
    if (ctx.operations.busy(key, ctx.now)) continue;
    createVa(ctx, view, key, volume);
  }
}

function createVa(ctx: KcmContext, view: View, key: string, volume: VolumeToAttach): void {
  const name = vaNameOf(volume);
  try {
    ctx.kube.components.create('VolumeAttachment', undefined, {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name },
      spec: { attacher: EBS_CSI_DRIVER, nodeName: volume.nodeName, source: volume.source },
    });
    ctx.report.created.push(name);
  } catch (error) {
    if (!(error instanceof ApiError && error.status.code === 409)) {
      failAttach(ctx, key, volume, volume, `attacher.Attach failed: ${(error as Error).message}`);
      return;
    }
    // An existing VA may already answer: the wait's first look is at once.
    const { pods: _pods, ...spec } = volume;
    const operation = { kind: 'attach' as const, volume: spec, startedAt: ctx.now };
    ctx.operations.start(key, operation);
    checkAttach(ctx, view, key, operation);
    return;
  }
  const { pods: _pods, ...spec } = volume;
  ctx.operations.start(key, { kind: 'attach', volume: spec, startedAt: ctx.now });
}

/** One look at the VA of a pending attach, as the lister-based wait polls it. */
export function checkAttach(ctx: KcmContext, view: View, key: string, operation: PendingOperation): void {
  const name = vaNameOf(operation.volume);
  const va = view.vas.get(name);
  const pods = view.desired.get(key) ?? { pods: [] };
  let error: string | undefined;
  if (va?.metadata.deletionTimestamp) error = 'volume attachment is being deleted';
  else if (va?.status?.attached === true) {
    ctx.operations.succeed(key);
    ctx.actual.markAttached(operation.volume);
    ctx.report.attached.push(name);
    for (const pod of pods.pods)
      ctx.events.record(pod, 'Normal', 'SuccessfulAttachVolume', volumeMessage('AttachVolume.Attach succeeded', operation.volume, ''));
    return;
  } else if (va?.status?.attachError) error = va.status.attachError.message ?? '';
  else if (ctx.now - operation.startedAt >= CSI_WAIT_MS)
    error = `timed out waiting for external-attacher of ${EBS_CSI_DRIVER} CSI driver to attach volume ${operation.volume.volumeHandle}`;
  if (error !== undefined) failAttach(ctx, key, operation.volume, pods, error);
}

function failAttach(
  ctx: KcmContext,
  key: string,
  volume: PendingOperation['volume'],
  waiting: Pick<VolumeToAttach, 'pods'>,
  error: string,
): void {
  ctx.operations.fail(key, ctx.now, error);
  ctx.actual.markUncertain(volume);
  ctx.report.failed.push({ va: vaNameOf(volume), kind: 'attach', error });
  for (const pod of waiting.pods)
    ctx.events.record(pod, 'Warning', 'FailedAttachVolume', volumeMessage('AttachVolume.Attach failed', volume, `: ${error}`));
}
