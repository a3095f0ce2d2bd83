/**
 * The budget of EC2's mutating calls. EC2 throttles per account and region with one token bucket
 * per API action (AttachVolume and DetachVolume each hold 50 tokens, refilled 5/s), so the budget
 * is kept per action. Callers reserve a slot and wait for it (reserve-then-wait), first come first
 * served; the arithmetic is GCRA, whose whole state is one number per action (the theoretical
 * arrival time, TAT), so it can live in one store item shared by every invocation (rate-budget.ts).
 */
export const MUTATING_ACTIONS = ['AttachVolume', 'DetachVolume'] as const;
export type MutatingAction = (typeof MUTATING_ACTIONS)[number];

export interface RateLimiter {
  /** Resolves when one call of `action` may be sent. */
  acquire(action: MutatingAction): Promise<void>;
}

/** A bucket's shape: `burst` calls at once, then `ratePerSecond` on average. */
export interface BucketSize {
  ratePerSecond: number;
  burst: number;
}

export const unlimited: RateLimiter = { acquire: () => Promise.resolve() };

export interface Reservation {
  /** When the reserved call may be sent (epoch ms). */
  slot: number;
  /** The TAT to store. */
  tat: number;
}

/**
 * GCRA's virtual scheduling: each call is spaced one emission interval T = 1/rate after the last,
 * and may be sent up to (burst − 1)·T ahead of its theoretical time. `tat` is the stored TAT
 * (undefined: never used). A TAT in the past is a full bucket, so it restarts from `now`. Over any
 * window W at most burst + rate·W slots fall in it.
 */
export function reserveSlot(tat: number | undefined, now: number, size: BucketSize): Reservation {
  const interval = 1000 / size.ratePerSecond;
  const tolerance = (size.burst - 1) * interval;
  const theoretical = Math.max(tat ?? now, now);
  return { slot: Math.max(now, theoretical - tolerance), tat: theoretical + interval };
}

export function checkBucketSize(action: string, size: BucketSize): void {
  if (!(size.ratePerSecond > 0) || !Number.isInteger(size.burst) || !(size.burst >= 1)) {
    throw new RangeError(
      `${action}: a budget needs a rate above 0 and a whole burst of at least 1, got ${size.ratePerSecond}/${size.burst}`,
    );
  }
}
