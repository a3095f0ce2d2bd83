/**
 * A token bucket bounding this adapter's mutating calls (AttachVolume, DetachVolume) per second,
 * so a pass leaves room in the account's EC2 buckets (one per API: AttachVolume and DetachVolume
 * each 50 tokens, 5/s; one limiter for both is the cautious side). Callers reserve a token; when
 * the bucket is empty they wait their turn, first come first served.
 */
import type { Clock } from '../../clock.js';

export interface RateLimiter {
  acquire(): Promise<void>;
}

export interface TokenBucketOptions {
  ratePerSecond: number;
  burst: number;
  clock: Clock;
}

export const unlimited: RateLimiter = { acquire: () => Promise.resolve() };

export class TokenBucketLimiter implements RateLimiter {
  private tokens: number;
  private updatedAt: number;

  constructor(private readonly options: TokenBucketOptions) {
    if (!(options.ratePerSecond > 0) || !(options.burst >= 1)) {
      throw new RangeError(`token bucket needs ratePerSecond > 0 and burst >= 1, got ${options.ratePerSecond}/${options.burst}`);
    }
    this.tokens = options.burst;
    this.updatedAt = options.clock.now();
  }

  /** Reserves a token now (possibly going into debt) and waits until the debt is repaid. */
  async acquire(): Promise<void> {
    const now = this.options.clock.now();
    const refill = ((now - this.updatedAt) / 1000) * this.options.ratePerSecond;
    this.tokens = Math.min(this.options.burst, this.tokens + refill) - 1;
    this.updatedAt = now;
    if (this.tokens >= 0) return;
    await this.options.clock.sleep((-this.tokens / this.options.ratePerSecond) * 1000);
  }
}
