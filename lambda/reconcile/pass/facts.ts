/**
 * Facts the plan relies on across passes, written onto the records: whether each node mounts
 * the volume (its `volumesInUse`), and when a detach was first requested (the plan says which
 * timers to start or clear; the unmount timeout counts from the persisted time).
 */
import type { DetachRequestUpdate } from '../../core/actions.js';
import { isMounted } from '../../core/nodes.js';
import { clearDetachRequest, requestDetach, setMounted, type Transition } from '../../core/transitions.js';
import type { VolumeId, VolumeRecord } from '../../core/types.js';
import type { PassContext } from './state.js';
import { onRecord, writeRecord } from './records.js';

export async function recordFacts(ctx: PassContext, detachRequests: DetachRequestUpdate[]): Promise<void> {
  const requests = new Map<VolumeId, DetachRequestUpdate[]>();
  for (const request of detachRequests) requests.set(request.volumeId, [...(requests.get(request.volumeId) ?? []), request]);
  for (const record of [...ctx.actual.values()]) {
    const step = onRecord((current) => factsOf(ctx, current, requests.get(current.volumeId) ?? []));
    const next = step(record);
    if (next.ok && next.record === record) continue;
    const written = await writeRecord(ctx.deps.store, ctx.actual, record.volumeId, record, step);
    if (!written.ok) ctx.deps.log.warn('could not record attachment facts', { volumeId: record.volumeId, reason: written.reason });
  }
}

function factsOf(ctx: PassContext, record: VolumeRecord, requests: DetachRequestUpdate[]): Transition {
  let next: Transition = { ok: true, record };
  for (const attachment of Object.values(record.attachments)) {
    const view = ctx.desired.nodes.get(attachment.nodeName);
    if (view === undefined || !next.ok) continue;
    next = setMounted(next.record, attachment.nodeName, isMounted(view.volumesInUse, record.uniqueName));
  }
  for (const request of requests) {
    if (!next.ok || next.record.attachments[request.nodeName] === undefined) continue;
    next =
      request.detachRequestedAt === null
        ? clearDetachRequest(next.record, request.nodeName)
        : requestDetach(next.record, request.nodeName, request.detachRequestedAt);
  }
  return next;
}
