/**
 * Per-operation exponential backoff with upstream's defaults
 * (pkg/util/goroutinemap/exponentialbackoff: 500 ms initial, doubling, capped at 2 min 2 s).
 */
import type { Backoff } from './types.js';

export interface BackoffConfig {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffConfig = { initialMs: 500, maxMs: 122_000 };

/** The backoff after one more failure at `now`. */
export function nextBackoff(
  previous: Backoff | undefined,
  error: string,
  now: number,
  config: BackoffConfig = DEFAULT_BACKOFF,
  untilDetachFrom?: Backoff['untilDetachFrom'],
): Backoff {
  const failures = (previous?.failures ?? 0) + 1;
  const delay = Math.min(config.initialMs * 2 ** (failures - 1), config.maxMs);
  return { failures, notBefore: now + delay, lastError: error, ...(untilDetachFrom === undefined ? {} : { untilDetachFrom }) };
}

/**
 * True while an `AttachmentLimitExceeded` still holds: the actual state holds as many attachments
 * on that instance as when EC2 refused (`attachedOn` counts them now).
 */
export function heldByLimit(backoff: Backoff | undefined, attachedOn: (instanceId: string) => number): boolean {
  const hold = backoff?.untilDetachFrom;
  return hold !== undefined && attachedOn(hold.instanceId) >= hold.attached;
}

/** True while the backoff forbids a new attempt. */
export function inBackoff(backoff: Backoff | undefined, now: number): boolean {
  return backoff !== undefined && now < backoff.notBefore;
}
