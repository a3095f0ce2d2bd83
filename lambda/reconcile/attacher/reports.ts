/**
 * Attacher mode's reports: kcm's VolumeAttachments, written as external-attacher writes them.
 * Before EC2: our finalizer on the PV, then ours plus the node-id annotation on the VA. After an
 * attach: status `attached` with the devicePath. After a detach: the VA finalizer off FIRST, then
 * the status (a VA without our finalizer counts as detached, so no second DetachVolume follows a
 * lost status write). Failures: `attachError` / `detachError`. Every object written once per pass.
 */
import type { AttachAction } from '../../core/actions.js';
import { attachErrorStatus, attachedStatus, detachErrorStatus, detachedStatus, type VaStatusPatch } from '../../core/attacher/status.js';
import type { VaTarget } from '../../core/attacher/targets.js';
import type { KubePv } from '../../core/kube.js';
import { type NodeName, pairKey, type VolumeId } from '../../core/types.js';
import type { ClusterEvent, StatusOutcome } from '../../ports/cluster.js';
import { bestEffort, type PassContext } from '../pass/context.js';
import type { ModeReports } from '../pass/mode.js';
import { reportAfterExecute, type AttacherReportState } from './after-execute.js';

const ATTACHED: ClusterEvent = { type: 'Normal', reason: 'SuccessfulAttachVolume', message: '' };
const FAILED_ATTACH = 'FailedAttachVolume';
const FAILED_DETACH = 'FailedDetachVolume';

/** The write's outcome; undefined when it failed (already reported as a report error). */
export async function writeStatus(
  ctx: PassContext,
  state: AttacherReportState,
  target: VaTarget,
  status: VaStatusPatch,
): Promise<StatusOutcome | undefined> {
  state.written.add(target.name);
  let outcome: StatusOutcome | undefined;
  await bestEffort(ctx, `status of VolumeAttachment ${target.name}`, async () => {
    outcome = await ctx.deps.cluster.patchVolumeAttachmentStatus(target.name, status);
  });
  return outcome;
}

function tell(ctx: PassContext, target: VaTarget, event: ClusterEvent): Promise<void> {
  const va = { name: target.name, uid: target.va.metadata.uid ?? '' };
  return bestEffort(ctx, `event ${event.reason} on VolumeAttachment ${target.name}`, () =>
    ctx.deps.cluster.recordVolumeAttachmentEvent(va, event),
  );
}

async function attachError(ctx: PassContext, state: AttacherReportState, target: VaTarget, message: string, limit = false): Promise<void> {
  await writeStatus(ctx, state, target, attachErrorStatus(message, ctx.deps.clock(), limit));
  await tell(ctx, target, { type: 'Warning', reason: FAILED_ATTACH, message });
}

/**
 * Upstream's order before ControllerPublish: PV finalizer, then the VA's finalizer and node id in
 * one patch. Each starts from this pass's read of the object (no GET when it is unchanged since).
 */
async function claimObjects(ctx: PassContext, target: VaTarget, action: AttachAction, pvRead?: KubePv): Promise<string | undefined> {
  const cluster = ctx.deps.cluster;
  if (target.pvName !== undefined) {
    const pv = await cluster.addPvFinalizer(target.pvName, pvRead?.metadata);
    if (pv === 'deleting') return `PersistentVolume ${target.pvName} is marked for deletion`;
    if (pv === 'gone') return `PersistentVolume ${target.pvName} was not found`;
  }
  const claimed = await cluster.claimVolumeAttachment(target.name, action.instanceId, target.va.metadata);
  return claimed === 'claimed' ? undefined : `VolumeAttachment ${target.name} is ${claimed === 'gone' ? 'gone' : 'being deleted'}`;
}

/** `pvsRead`: the PVs this pass read, the first attempt of each PV finalizer patch. */
export function attacherReports(
  targets: readonly VaTarget[],
  pvs?: AttacherReportState['pvs'],
  pvsRead: readonly KubePv[] = [],
): ModeReports {
  const pvRead = new Map(pvsRead.map((pv) => [pv.metadata.name ?? '', pv]));
  const live = new Map<string, VaTarget>();
  const deleting = new Map<string, VaTarget>();
  for (const t of targets) if (t.volumeId !== undefined) (t.deleting ? deleting : live).set(pairKey(t.volumeId, t.nodeName), t);
  const state: AttacherReportState = { targets, written: new Set(), ...(pvs === undefined ? {} : { pvs }) };
  const liveOf = (volumeId: VolumeId, nodeName: NodeName) => live.get(pairKey(volumeId, nodeName));
  return {
    beforeAttach: async (ctx, action) => {
      const target = liveOf(action.volumeId, action.nodeName);
      if (target === undefined) return 'no VolumeAttachment asks for this attach';
      let refused: string | undefined;
      try {
        refused = await claimObjects(ctx, target, action, pvRead.get(target.pvName ?? ''));
      } catch (error) {
        refused = error instanceof Error ? error.message : String(error);
      }
      if (refused !== undefined && !refused.startsWith(`VolumeAttachment ${target.name} is`))
        await attachError(ctx, state, target, refused);
      return refused;
    },
    attached: async (ctx, action, device) => {
      const target = liveOf(action.volumeId, action.nodeName);
      if (target === undefined) return;
      // kcm may delete the object while EC2 attaches: it is then detached, never marked attached.
      const outcome = await writeStatus(ctx, state, target, attachedStatus(device));
      if (outcome === 'deleting' || outcome === 'gone') return;
      await tell(ctx, target, { ...ATTACHED, message: `attached ${action.volumeId} to ${action.instanceId} as ${device}` });
    },
    attachFailed: async (ctx, action, failure) => {
      const target = liveOf(action.volumeId, action.nodeName);
      if (target !== undefined) await attachError(ctx, state, target, failure.message, failure.kind === 'limit-reached');
    },
    detached: async (ctx, action) => {
      const target = deleting.get(pairKey(action.volumeId, action.nodeName));
      if (target === undefined) return;
      state.written.add(target.name);
      // Finalizer first: if the status write is lost, the object still reads as detached.
      await ctx.deps.cluster.releaseVolumeAttachment(target.name);
      await writeStatus(ctx, state, target, detachedStatus());
    },
    detachFailed: async (ctx, action, message) => {
      const target = deleting.get(pairKey(action.volumeId, action.nodeName));
      if (target === undefined) return;
      await writeStatus(ctx, state, target, detachErrorStatus(message, ctx.deps.clock()));
      await tell(ctx, target, { type: 'Warning', reason: FAILED_DETACH, message });
    },
    settled: () => Promise.resolve(),
    afterExecute: (ctx) => reportAfterExecute(ctx, state),
  };
}
