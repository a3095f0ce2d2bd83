/**
 * EC2 request throttling: a token bucket per API category (EC2 Developer Guide, "Request
 * throttling"). Each request takes one token; an empty bucket answers RequestLimitExceeded.
 * Refill is computed from the injectable clock, so a manual clock controls it exactly.
 */
import type { ThrottleCategory } from './actions/context.js';
import type { Clock } from './clock.js';

interface BucketSize {
  capacity: number;
  refillPerSecond: number;
}

export type ThrottleConfig = Record<ThrottleCategory, BucketSize>;

export const EC2_THROTTLE: ThrottleConfig = {
  mutating: { capacity: 50, refillPerSecond: 5 },
  nonMutating: { capacity: 100, refillPerSecond: 20 },
};

class Bucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly size: BucketSize,
    now: number,
  ) {
    this.tokens = size.capacity;
    this.updatedAt = now;
  }

  take(now: number): boolean {
    const elapsed = Math.max(0, now - this.updatedAt);
    this.tokens = Math.min(this.size.capacity, this.tokens + (elapsed / 1000) * this.size.refillPerSecond);
    this.updatedAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

export class Throttle {
  private buckets: Map<ThrottleCategory, Bucket> | undefined;

  constructor(
    private readonly clock: Clock,
    config: ThrottleConfig | false,
  ) {
    this.configure(config);
  }

  /** Replace the buckets (full again), or `false` to stop throttling. */
  configure(config: ThrottleConfig | false): void {
    const now = this.clock.now();
    this.buckets =
      config === false
        ? undefined
        : new Map(Object.entries(config).map(([category, size]) => [category as ThrottleCategory, new Bucket(size, now)]));
  }

  /** True when the request may proceed. */
  admit(category: ThrottleCategory): boolean {
    return this.buckets?.get(category)?.take(this.clock.now()) ?? true;
  }
}
