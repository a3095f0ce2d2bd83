/**
 * The end of an attacher pass, for every object the pass read: statuses the core says are out of
 * line (the safety rule, resolution errors), deleting objects that can be let go without a detach,
 * and PV finalizers nobody needs. Attachments no object asks for are reported by the full pass
 * (`reportUnwanted`), which alone sees every VolumeAttachment.
 */
import {
  detachErrorStatus,
  detachedStatus,
  liveStatusCorrection,
  pvFinalizersToRemove,
  releasableWithoutDetach,
} from '../../core/attacher/status.js';
import type { AttacherView, VaTarget } from '../../core/attacher/targets.js';
import { unwantedAttachments } from '../../core/attacher/unwanted.js';
import { bestEffort, type PassContext } from '../pass/context.js';
import { writeStatus } from './reports.js';

export interface AttacherReportState {
  targets: readonly VaTarget[];
  /** Objects whose status this pass already wrote. */
  written: Set<string>;
  /** The full listing (full passes only): PV finalizers are judged against every VolumeAttachment. */
  pvs?: Pick<AttacherView, 'pvs' | 'volumeAttachments'>;
}

async function correctTarget(ctx: PassContext, state: AttacherReportState, target: VaTarget): Promise<void> {
  if (state.written.has(target.name)) return;
  // An object naming no volume we can find still gets its resolution error, as external-attacher saves it.
  const { volumeId } = target;
  const record = volumeId === undefined ? undefined : ctx.actual.get(volumeId);
  const observation = volumeId === undefined ? undefined : ctx.observations.volumes?.get(volumeId);
  const now = ctx.deps.clock();
  if (!target.deleting) {
    const status = liveStatusCorrection(target, record, observation, now);
    if (status !== undefined) await writeStatus(ctx, state, target, status);
    return;
  }
  if (target.error !== undefined && target.finalized && target.va.status?.detachError?.message !== target.error) {
    await writeStatus(ctx, state, target, detachErrorStatus(target.error, now));
    return;
  }
  if (releasableWithoutDetach(target, record, observation)) {
    await bestEffort(ctx, `release VolumeAttachment ${target.name}`, async () => {
      await ctx.deps.cluster.releaseVolumeAttachment(target.name);
      await ctx.deps.cluster.patchVolumeAttachmentStatus(target.name, detachedStatus());
    });
  }
}

/** Logs each attachment no VolumeAttachment asks for (left attached: kcm decides); returns how many. */
export function reportUnwanted(ctx: PassContext, targets: readonly VaTarget[]): number {
  const unwanted = unwantedAttachments(ctx.actual, targets, ctx.observations);
  for (const attachment of unwanted) {
    ctx.deps.log.warn('attached with no VolumeAttachment; kcm decides, so it is left attached', { ...attachment });
  }
  return unwanted.length;
}

export async function reportAfterExecute(ctx: PassContext, state: AttacherReportState): Promise<void> {
  for (const target of state.targets) await correctTarget(ctx, state, target);
  if (state.pvs !== undefined) {
    for (const pv of pvFinalizersToRemove(state.pvs.pvs, state.pvs.volumeAttachments)) {
      const name = pv.metadata.name ?? '';
      await bestEffort(ctx, `PV finalizer of ${name}`, () => ctx.deps.cluster.removePvFinalizer(name));
    }
  }
}
