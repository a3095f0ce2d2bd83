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
import type { VaTarget } from '../../core/attacher/targets.js';
import { unwantedAttachments } from '../../core/attacher/unwanted.js';
import type { PassContext } from '../pass/state.js';
import { bestEffort } from '../pass/context.js';
import type { AttacherSide } from './side.js';
import { writeStatus } from './status-writes.js';

async function correctTarget(ctx: PassContext, side: AttacherSide, target: VaTarget): Promise<void> {
  if (side.written.has(target.name)) return;
  // An object naming no volume we can find still gets its resolution error, as external-attacher saves it.
  const { volumeId } = target;
  const record = volumeId === undefined ? undefined : ctx.actual.get(volumeId);
  const observation = volumeId === undefined ? undefined : ctx.observations.volumes?.get(volumeId);
  const now = ctx.deps.clock();
  if (!target.deleting) {
    const status = liveStatusCorrection(target, record, observation, now);
    if (status !== undefined) await writeStatus(ctx, side, target, status);
    return;
  }
  if (target.error !== undefined && target.finalized && target.va.status?.detachError?.message !== target.error) {
    await writeStatus(ctx, side, target, detachErrorStatus(target.error, now));
    return;
  }
  if (releasableWithoutDetach(target, record, observation)) {
    await bestEffort(ctx, `release VolumeAttachment ${target.name}`, async () => {
      await side.cluster.releaseVolumeAttachment(target.name);
      await side.cluster.patchVolumeAttachmentStatus(target.name, detachedStatus());
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

export async function reportAfterExecute(ctx: PassContext, side: AttacherSide): Promise<void> {
  for (const target of side.targets) await correctTarget(ctx, side, target);
  if (side.listing !== undefined) {
    for (const pv of pvFinalizersToRemove(side.listing.pvs, side.listing.volumeAttachments)) {
      const name = pv.metadata.name ?? '';
      await bestEffort(ctx, `PV finalizer of ${name}`, () => side.cluster.removePvFinalizer(name));
    }
  }
}
