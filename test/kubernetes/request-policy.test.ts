import { describe, expect, it } from 'vitest';
import { TokenBucket, isRetryableStatus, retryAfterMs, type PolicyClock } from '../../lambda/adapters/kubernetes/request-policy.js';

function fakeClock(): PolicyClock & { slept: number[] } {
  let t = 0;
  const slept: number[] = [];
  return { slept, now: () => t, random: () => 0.5, sleep: (ms) => ((t += ms), slept.push(ms), Promise.resolve()) };
}

describe('client-side rate limit (token bucket)', () => {
  it('lets a burst through at once, then one request per 1/qps', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(10, 3, clock);
    for (let i = 0; i < 6; i++) await bucket.take();
    expect(clock.slept).toEqual([100, 100, 100]);
  });

  it('refills while idle, up to the burst', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(10, 2, clock);
    await bucket.take();
    await bucket.take();
    await clock.sleep(10_000);
    clock.slept.length = 0;
    for (let i = 0; i < 3; i++) await bucket.take();
    expect(clock.slept).toEqual([100]);
  });

  it('refuses a limit that would never let a request through', () => {
    expect(() => new TokenBucket(0, 1, fakeClock())).toThrow(/qps > 0/);
  });
});

describe('what is retried', () => {
  it.each([
    [429, true],
    [500, true],
    [503, true],
    [504, true],
    [400, false],
    [401, false],
    [403, false],
    [404, false],
    [409, false],
    [410, false],
    [422, false],
  ])('HTTP %i → retried: %s', (status, retried) => {
    expect(isRetryableStatus(status)).toBe(retried);
  });

  it.each([
    ['seconds', '2', 2_000],
    ['an HTTP date', 'Thu, 01 Jan 1970 00:00:05 GMT', 5_000],
    ['a date in the past', 'Thu, 01 Jan 1970 00:00:00 GMT', 0],
    ['garbage', 'soon', undefined],
    ['absence', undefined, undefined],
  ])('Retry-After as %s', (_behaviour, header, expected) => {
    expect(retryAfterMs(header, 0)).toBe(expected);
  });
});
