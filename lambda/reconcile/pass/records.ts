/**
 * Writing one volume record: apply a pure transition, then compare-and-swap it into the
 * store. On a conflict the record is re-read and the transition re-applied to the fresh
 * copy (transitions re-check every precondition), a bounded number of times.
 */
import { isEmpty, type RefusalCode, type Transition } from '../../core/transitions.js';
import type { ActualState, VolumeId, VolumeRecord } from '../../core/types.js';
import type { VolumeStore } from '../../ports/volume-store.js';

export type Step = (record: VolumeRecord | undefined) => Transition;

export type Written =
  | { ok: true; record: VolumeRecord }
  | { ok: false; why: 'refused'; refused: RefusalCode; reason: string }
  | { ok: false; why: 'conflict'; reason: string };

export interface WriteOptions {
  /** The write must find this operation still holding this lock key (fencing). */
  fence?: { lockKey: string; operationId: string };
  attempts?: number;
}

/** Applies `step` to `current` (undefined: no item yet) and stores the result; updates `actual` on success. */
export async function writeRecord(
  store: VolumeStore,
  actual: ActualState | undefined,
  volumeId: VolumeId,
  current: VolumeRecord | undefined,
  step: Step,
  options: WriteOptions = {},
): Promise<Written> {
  let record = current;
  for (let attempt = 1; attempt <= (options.attempts ?? 3); attempt++) {
    const next = step(record);
    if (!next.ok) return { ok: false, why: 'refused', refused: next.refused, reason: next.reason };
    if (record !== undefined && next.record === record) return { ok: true, record };
    const result = await store.put(next.record, options.fence);
    if (result.ok) {
      actual?.set(volumeId, result.record);
      return { ok: true, record: result.record };
    }
    record = await store.get(volumeId);
    if (record === undefined) actual?.delete(volumeId);
    else actual?.set(volumeId, record);
  }
  return { ok: false, why: 'conflict', reason: `${volumeId} kept changing underneath this pass` };
}

/** A step for records that must exist (completions, facts); a vanished item is a refusal, not a crash. */
export function onRecord(change: (record: VolumeRecord) => Transition): Step {
  return (record) => (record === undefined ? { ok: false, refused: 'not-holder', reason: 'the volume record is gone' } : change(record));
}

/**
 * Deletes a record with nothing left worth keeping, so items do not pile up per volume ever seen.
 * With `now`, a backoff no longer in force does not keep it; without, any backoff entry does (its
 * failure count still shapes the next delay). The delete is conditional on the version: a record
 * another pass wrote meanwhile stays.
 */
export async function removeIfEmpty(store: VolumeStore, actual: ActualState, record: VolumeRecord, now?: number): Promise<void> {
  if (!isEmpty(record, now)) return;
  const removed = await store.remove(record);
  if (removed.ok) actual.delete(record.volumeId);
}
