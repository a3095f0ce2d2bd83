/**
 * Asking EC2 and writing down what it says (verification): observations are applied to the
 * records with the pure `applyObservation`, each written with a compare-and-swap.
 */
import { applyObservation, seedUncertain } from '../../core/transitions.js';
import { type Ec2Attachment, type VolumeId, type VolumeObservation } from '../../core/types.js';
import { adoptionIndex, type AdoptionIndex } from '../../core/adoption.js';
import type { DesiredState } from '../../core/types.js';
import type { PassContext } from './state.js';
import { writeRecord } from './records.js';

/**
 * Corrects one volume's record with EC2's view. A volume with no record that EC2 shows attached
 * to a node that may adopt it (`adoptableNodes`) is recorded (`uncertain`, then corrected) so it
 * can be reported or detached — but only a volume the cluster uses or reports: an instance's root volume, or any volume the
 * cluster knows nothing of, is never taken over (it would look unneeded and be detached).
 */
/** One index per desired state: a verification applies every volume it described against the same one. */
const indexes = new WeakMap<DesiredState, AdoptionIndex>();

function adoptionOf(desired: DesiredState): AdoptionIndex {
  const known = indexes.get(desired);
  if (known !== undefined) return known;
  const index = adoptionIndex(desired);
  indexes.set(desired, index);
  return index;
}

export async function applyVolumeObservation(ctx: PassContext, observation: VolumeObservation): Promise<void> {
  const now = ctx.deps.clock();
  const volumeId = observation.volumeId;
  const adoption = adoptionOf(ctx.desired);
  const byInstance = adoption.adoptable(volumeId);
  let record = ctx.actual.get(volumeId);
  if (record === undefined) {
    if (!adoption.knows(volumeId)) return;
    const first = observation.attachments.find((a) => a.state !== 'detached' && byInstance.has(a.instanceId));
    if (first === undefined) return;
    const seeded = seedUncertain(
      undefined,
      { volumeId, nodeName: byInstance.get(first.instanceId) as string, instanceId: first.instanceId, device: first.device },
      now,
    );
    if (!seeded.ok) return;
    record = seeded.record;
  }
  const written = await writeRecord(ctx.deps.store, ctx.actual, volumeId, record.version === 0 ? undefined : record, (current) =>
    applyObservation(current ?? record, observation, now, byInstance),
  );
  if (!written.ok) {
    ctx.deps.log.warn('could not record what EC2 says', { volumeId, reason: written.reason });
    return;
  }
  // Only a record EC2 corrected needs its VolumeAttachments looked at again: touching every
  // verified pair would cost two API calls per attachment every sync period.
  if (written.record === record) return;
  for (const attachment of [...Object.keys(record.attachments), ...Object.keys(written.record.attachments)]) {
    ctx.mode.changed(volumeId, attachment);
  }
}

/** DescribeVolumes for one volume (e.g. after `attached-elsewhere`), applied to its record. */
export async function observeVolume(ctx: PassContext, volumeId: VolumeId): Promise<void> {
  try {
    const observed = await ctx.deps.blockStorage.describeVolumes([volumeId]);
    const observation = observed.get(volumeId);
    if (observation === undefined) return;
    ctx.observations.volumes?.set(volumeId, observation);
    await applyVolumeObservation(ctx, observation);
  } catch (error) {
    ctx.deps.log.warn('could not describe volume', { volumeId, error: String(error) });
  }
}

/**
 * What EC2 answered about one attachment while the pass acted on it (an attach's or a detach's own
 * wait): newer than the pass's earlier look, so it replaces that look's view of the attachment, and
 * what is reported later in the pass rests on it. A volume EC2 was not asked about stays unasked.
 */
export function noteAttachment(
  ctx: PassContext,
  volumeId: VolumeId,
  seen: Pick<Ec2Attachment, 'instanceId' | 'state'> & { device?: string },
): void {
  const observation = ctx.observations.volumes?.get(volumeId);
  if (observation === undefined) return;
  const others = observation.attachments.filter((a) => a.instanceId !== seen.instanceId);
  const attachments = seen.state === 'detached' ? others : [...others, { ...seen, device: seen.device ?? '' }];
  ctx.observations.volumes?.set(volumeId, { ...observation, exists: true, attachments });
}
