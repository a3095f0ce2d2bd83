/**
 * A full pass's read of the store: every record, the table cut into `SCAN_SEGMENTS` segments read
 * side by side (DynamoDB's parallel Scan), each segment's pages still one after another. The
 * records come in segment order, whichever segment answers first (reads.ts), so a pass walks them
 * in the same order every time. A failed page fails the whole read: never a short list.
 */
import type { ReadResult, VolumeStore } from '../../ports/volume-store.js';

/**
 * Measured at 10,000 nodes (11 pages of 1 MB): see the README's "Covered passes". A Scan reads the
 * same items and costs the same read capacity in any number of segments.
 */
export const SCAN_SEGMENTS = 4;

export function scanRecords(store: Pick<VolumeStore, 'scan'>): Promise<ReadResult> {
  return store.scan({ segments: SCAN_SEGMENTS });
}
