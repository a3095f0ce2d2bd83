/**
 * Attacher mode's side of a pass: kcm's VolumeAttachments, written as external-attacher writes them.
 * Before EC2: our finalizer on the PV, then ours plus the node-id annotation on the VA. After an
 * attach: status `attached` with the devicePath. After a detach: the VA finalizer off FIRST, then
 * the status (a VA without our finalizer counts as detached, so no second DetachVolume follows a
 * lost status write). Failures: `attachError` / `detachError`. Every object written once per pass.
 * kcm decides detaches (it already waited for the unmount) and owns node status and pod events, so
 * a detach goes ahead as planned and nothing is unreported or told of a Multi-Attach conflict here.
 */
import type { AttachAction, UnreportAction } from '../../core/actions.js';
import { attachErrorStatus, attachedStatus, detachErrorStatus, detachedStatus, limitReachedStatus } from '../../core/attacher/status.js';
import type { AttacherView, VaTarget } from '../../core/attacher/targets.js';
import type { KubePv } from '../../core/kube.js';
import { pairKey, type NodeName, type VolumeId } from '../../core/types.js';
import type { ClusterEvent } from '../../ports/cluster.js';
import type { ModeFor, PassContext, PassMode } from '../pass/state.js';
import type { ActionResult } from '../pass/types.js';
import { reportAfterExecute } from './after-execute.js';
import type { AttacherDeps } from './deps.js';
import type { AttacherSide } from './side.js';
import { tell, writeStatus } from './status-writes.js';

const ATTACHED: ClusterEvent = { type: 'Normal', reason: 'SuccessfulAttachVolume', message: '' };
const FAILED_ATTACH = 'FailedAttachVolume';
const FAILED_DETACH = 'FailedDetachVolume';

export interface AttacherInputs {
  targets: readonly VaTarget[];
  /** A full pass's complete listing: PV finalizers nobody needs are removed. */
  listing?: Pick<AttacherView, 'pvs' | 'volumeAttachments'>;
  /** The PVs this pass read, the first attempt of each PV finalizer patch. */
  pvsRead?: readonly KubePv[];
}

async function attachError(ctx: PassContext, side: AttacherSide, target: VaTarget, message: string, limit = false): Promise<void> {
  await writeStatus(
    ctx,
    side,
    target,
    limit ? limitReachedStatus(message, ctx.deps.clock()) : attachErrorStatus(message, ctx.deps.clock()),
  );
  await tell(ctx, side, target, { type: 'Warning', reason: FAILED_ATTACH, message });
}

/**
 * Upstream's order before ControllerPublish: PV finalizer, then the VA's finalizer and node id in
 * one patch. Each starts from this pass's read of the object (no GET when it is unchanged since).
 */
async function claimObjects(side: AttacherSide, target: VaTarget, action: AttachAction): Promise<string | undefined> {
  const { cluster } = side;
  if (target.pvName !== undefined) {
    const pv = await cluster.addPvFinalizer(target.pvName, side.pvRead.get(target.pvName)?.metadata);
    if (pv === 'deleting') return `PersistentVolume ${target.pvName} is marked for deletion`;
    if (pv === 'gone') return `PersistentVolume ${target.pvName} was not found`;
  }
  const claimed = await cluster.claimVolumeAttachment(target.name, action.instanceId, target.va.metadata);
  return claimed === 'claimed' ? undefined : `VolumeAttachment ${target.name} is ${claimed === 'gone' ? 'gone' : 'being deleted'}`;
}

/** The plan never unreports where kcm decides; should it, nothing is written and no detach follows. */
function refuseUnreports(actions: readonly UnreportAction[]): Promise<ActionResult[]> {
  return Promise.resolve(
    actions.map((a) => ({
      kind: 'unreport' as const,
      volumeId: a.volumeId,
      nodeName: a.nodeName,
      outcome: 'failed' as const,
      detail: "kcm writes the node's volumesAttached in attacher mode; not unreported",
    })),
  );
}

function attacherPass(side: AttacherSide): PassMode {
  const live = new Map<string, VaTarget>();
  const deleting = new Map<string, VaTarget>();
  for (const t of side.targets) if (t.volumeId !== undefined) (t.deleting ? deleting : live).set(pairKey(t.volumeId, t.nodeName), t);
  const liveOf = (volumeId: VolumeId, nodeName: NodeName) => live.get(pairKey(volumeId, nodeName));
  return {
    beforeAttach: async (ctx, action) => {
      const target = liveOf(action.volumeId, action.nodeName);
      if (target === undefined) return 'no VolumeAttachment asks for this attach';
      let refused: string | undefined;
      try {
        refused = await claimObjects(side, target, action);
      } catch (error) {
        refused = error instanceof Error ? error.message : String(error);
      }
      if (refused !== undefined && !refused.startsWith(`VolumeAttachment ${target.name} is`)) await attachError(ctx, side, target, refused);
      return refused;
    },
    attached: async (ctx, action, device) => {
      const target = liveOf(action.volumeId, action.nodeName);
      if (target === undefined) return;
      // kcm may delete the object while EC2 attaches: it is then detached, never marked attached.
      const outcome = await writeStatus(ctx, side, target, attachedStatus(device));
      if (outcome === 'deleting' || outcome === 'gone') return;
      await tell(ctx, side, target, { ...ATTACHED, message: `attached ${action.volumeId} to ${action.instanceId} as ${device}` });
    },
    attachFailed: async (ctx, action, failure) => {
      const target = liveOf(action.volumeId, action.nodeName);
      if (target !== undefined) await attachError(ctx, side, target, failure.message, failure.kind === 'limit-reached');
    },
    beforeDetach: () => undefined,
    confirmDetach: () => Promise.resolve(true),
    detached: async (ctx, action) => {
      const target = deleting.get(pairKey(action.volumeId, action.nodeName));
      if (target === undefined) return;
      side.written.add(target.name);
      // Finalizer first: if the status write is lost, the object still reads as detached.
      await side.cluster.releaseVolumeAttachment(target.name);
      await writeStatus(ctx, side, target, detachedStatus());
    },
    detachFailed: async (ctx, action, message) => {
      const target = deleting.get(pairKey(action.volumeId, action.nodeName));
      if (target === undefined) return;
      await writeStatus(ctx, side, target, detachErrorStatus(message, ctx.deps.clock()));
      await tell(ctx, side, target, { type: 'Warning', reason: FAILED_DETACH, message });
    },
    settled: () => Promise.resolve(),
    // The end of the pass judges every object it read, touched or not.
    changed: () => undefined,
    unreport: (_ctx, actions) => refuseUnreports(actions),
    // kcm tells the pods of a Multi-Attach conflict; it never asks us for the second attachment.
    conflict: () => Promise.resolve(),
    afterExecute: (ctx) => reportAfterExecute(ctx, side),
  };
}

/** Attacher mode for one pass, over the VolumeAttachments it read. */
export function attacherMode(deps: AttacherDeps, inputs: AttacherInputs): ModeFor {
  const side: AttacherSide = {
    cluster: deps.cluster,
    targets: inputs.targets,
    written: new Set(),
    ...(inputs.listing === undefined ? {} : { listing: inputs.listing }),
    pvRead: new Map((inputs.pvsRead ?? []).map((pv) => [pv.metadata.name ?? '', pv])),
  };
  return () => attacherPass(side);
}
