/** Attacher mode's writes on one VolumeAttachment: its status (once per pass) and its events. */
import type { VaStatusPatch } from '../../core/attacher/status.js';
import type { VaTarget } from '../../core/attacher/targets.js';
import type { ClusterEvent, StatusOutcome } from '../../ports/cluster.js';
import type { PassContext } from '../pass/state.js';
import { bestEffort } from '../pass/context.js';
import type { AttacherSide } from './side.js';

/** The write's outcome; undefined when it failed (already reported as a report error). */
export async function writeStatus(
  ctx: PassContext,
  side: AttacherSide,
  target: VaTarget,
  status: VaStatusPatch,
): Promise<StatusOutcome | undefined> {
  side.written.add(target.name);
  let outcome: StatusOutcome | undefined;
  await bestEffort(ctx, `status of VolumeAttachment ${target.name}`, async () => {
    outcome = await side.cluster.patchVolumeAttachmentStatus(target.name, status);
  });
  return outcome;
}

export function tell(ctx: PassContext, side: AttacherSide, target: VaTarget, event: ClusterEvent): Promise<void> {
  const va = { name: target.name, uid: target.va.metadata.uid ?? '' };
  return bestEffort(ctx, `event ${event.reason} on VolumeAttachment ${target.name}`, () =>
    side.cluster.recordVolumeAttachmentEvent(va, event),
  );
}
