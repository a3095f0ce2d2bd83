/**
 * Detaching as kcm's reconciler and CSI attacher do (reconciler.reconcile's detach loop,
 * operation_generator's DetachVolume, csi_attacher.Detach): a volume no pod on the node needs is
 * detached once the kubelet no longer reports it in use — or at once with the out-of-service
 * taint, or after maxWaitForUnmountDuration on a node that is not Ready. It first leaves node
 * status (no detach when that write fails), then its VolumeAttachment is deleted and kcm waits
 * for the object to go; a `detachError`, a volume still in use or 2 minutes of waiting fail the
 * operation, which backs off and leaves the volume uncertain.
 */
import type { KubeNode } from '../../lambda/core/kube.js';
import { EBS_CSI_DRIVER } from '../../lambda/core/types.js';
import { outOfServiceTaint } from '../kube/kubelet.js';
import { attachmentKey, type Attachment } from './actual.js';
import { CSI_WAIT_MS, vaNameOf, writeNodeStatus, type KcmContext, type View } from './context.js';
import type { PendingOperation } from './operations.js';

/** maxWaitForUnmountDuration, kcm's default. */
export const MAX_WAIT_FOR_UNMOUNT_MS = 6 * 60_000;

function ready(node: KubeNode | undefined): boolean {
  return (node?.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

function outOfService(node: KubeNode | undefined): boolean {
  return (node?.spec?.taints ?? []).some((t) => t.key === outOfServiceTaint && t.effect === 'NoExecute');
}

export function startDetaches(ctx: KcmContext, view: View): void {
  for (const attachment of ctx.actual.all()) {
    const { uniqueName, nodeName } = attachment.volume;
    const key = attachmentKey(uniqueName, nodeName);
    if (view.desired.has(key) || ctx.operations.busy(key, ctx.now)) continue;
    const timedOut = ctx.actual.detachWantedFor(uniqueName, nodeName, ctx.now) > MAX_WAIT_FOR_UNMOUNT_MS;
    const node = view.nodes.get(nodeName);
    const forced = !ready(node) && timedOut;
    const tainted = outOfService(node);
    const mounted = ctx.inUse.get(nodeName)?.has(uniqueName) === true;
    if (mounted && !forced && !tainted) continue;
    if (!leaveNodeStatus(ctx, view, attachment)) continue;
    detach(ctx, key, attachment, !(timedOut || tainted));
  }
}

/** RemoveVolumeFromReportAsAttached + UpdateNodeStatusForNode; put back when the write fails. */
function leaveNodeStatus(ctx: KcmContext, view: View, attachment: Attachment): boolean {
  const { uniqueName, nodeName } = attachment.volume;
  ctx.actual.setReported(uniqueName, nodeName, false);
  try {
    writeNodeStatus(ctx, view, nodeName);
    return true;
  } catch {
    ctx.actual.setReported(uniqueName, nodeName, attachment.confirmed);
    return false;
  }
}

function detach(ctx: KcmContext, key: string, attachment: Attachment, verifySafe: boolean): void {
  const { volume } = attachment;
  const name = vaNameOf(volume);
  if (verifySafe) {
    // verifyVolumeIsSafeToDetach: a live GET; a node that is gone is safe.
    const live = ctx.kube.get('Node', undefined, volume.nodeName) as KubeNode | undefined;
    if ((live?.status?.volumesInUse ?? []).includes(volume.uniqueName)) {
      failDetach(ctx, key, volume, 'volume is still in use by node');
      return;
    }
  }
  const deleted = ctx.kube.components.delete('VolumeAttachment', undefined, name);
  if (!deleted.missing) ctx.report.deleted.push(name);
  if (deleted.gone) {
    finishDetach(ctx, key, volume);
    return;
  }
  ctx.operations.start(key, { kind: 'detach', volume, startedAt: ctx.now });
}

/** One look at the VA of a pending detach: gone is done, `detachError` or the 2-minute wait fail. */
export function checkDetach(ctx: KcmContext, view: View, key: string, operation: PendingOperation): void {
  const va = view.vas.get(vaNameOf(operation.volume));
  if (!va) finishDetach(ctx, key, operation.volume);
  else if (va.status?.detachError) failDetach(ctx, key, operation.volume, va.status.detachError.message ?? '');
  else if (ctx.now - operation.startedAt >= CSI_WAIT_MS)
    failDetach(
      ctx,
      key,
      operation.volume,
      `timed out waiting for external-attacher of ${EBS_CSI_DRIVER} CSI driver to detach volume ${operation.volume.volumeHandle}`,
    );
}

function finishDetach(ctx: KcmContext, key: string, volume: PendingOperation['volume']): void {
  ctx.operations.succeed(key);
  ctx.actual.markDetached(volume.uniqueName, volume.nodeName);
  ctx.report.detached.push(vaNameOf(volume));
}

function failDetach(ctx: KcmContext, key: string, volume: PendingOperation['volume'], error: string): void {
  ctx.operations.fail(key, ctx.now, error);
  ctx.actual.markUncertain(volume);
  ctx.report.failed.push({ va: vaNameOf(volume), kind: 'detach', error });
}
