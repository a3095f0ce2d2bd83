/**
 * EC2 request throttling (EC2 Developer Guide, "Request throttling"): request rate limiting is
 * per API, so each action has its own token bucket, sized by the action's category (mutating
 * 50 +5/s, non-mutating 100 +20/s). Each request takes one token; an empty bucket answers
 * RequestLimitExceeded. Refill is computed from the injectable clock, so a manual clock controls it exactly.
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
  private config: ThrottleConfig | false = false;
  /** By action, created full on the action's first request. */
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly clock: Clock,
    config: ThrottleConfig | false,
  ) {
    this.configure(config);
  }

  /** Replace the buckets (full again), or `false` to stop throttling. */
  configure(config: ThrottleConfig | false): void {
    this.config = config;
    this.buckets.clear();
  }

  /** True when a request of `action` may proceed. */
  admit(action: string, category: ThrottleCategory): boolean {
    if (this.config === false) return true;
    const now = this.clock.now();
    let bucket = this.buckets.get(action);
    if (!bucket) this.buckets.set(action, (bucket = new Bucket(this.config[category], now)));
    return bucket.take(now);
  }
}
