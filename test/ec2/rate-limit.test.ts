/** The token bucket bounding mutating calls: burst, then one call per 1/rate seconds, fairly. */
import { describe, expect, it } from 'vitest';
import { TokenBucketLimiter, unlimited } from '../../lambda/adapters/ec2/rate-limit.js';
import { systemClock } from '../../lambda/clock.js';

function limiter(ratePerSecond: number, burst: number) {
  let now = 0;
  const sleeps: number[] = [];
  const bucket = new TokenBucketLimiter({
    ratePerSecond,
    burst,
    clock: { now: () => now, sleep: (ms) => (sleeps.push(ms), Promise.resolve()) },
  });
  return { bucket, sleeps, advance: (ms: number) => (now += ms) };
}

describe('TokenBucketLimiter', () => {
  it('lets a burst through without waiting', async () => {
    const { bucket, sleeps } = limiter(5, 3);
    await Promise.all([bucket.acquire(), bucket.acquire(), bucket.acquire()]);
    expect(sleeps).toEqual([]);
  });

  it('queues calls past the burst at 1/rate intervals, in arrival order', async () => {
    const { bucket, sleeps } = limiter(5, 2);
    await Promise.all(Array.from({ length: 5 }, () => bucket.acquire()));
    expect(sleeps.map(Math.round)).toEqual([200, 400, 600]);
  });

  it('refills with time, up to the burst', async () => {
    const { bucket, sleeps, advance } = limiter(5, 2);
    await bucket.acquire();
    await bucket.acquire();
    advance(10_000);
    await Promise.all([bucket.acquire(), bucket.acquire(), bucket.acquire()]);
    expect(sleeps.map(Math.round)).toEqual([200]);
  });

  it.each([
    ['a zero rate', 0, 1],
    ['a burst below one', 1, 0],
  ])('refuses %s', (_name, ratePerSecond, burst) => {
    expect(() => new TokenBucketLimiter({ ratePerSecond, burst, clock: systemClock })).toThrow(RangeError);
  });

  it('unlimited never waits', async () => {
    await expect(unlimited.acquire()).resolves.toBeUndefined();
  });
});
