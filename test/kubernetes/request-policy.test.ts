import { describe, expect, it } from 'vitest';
import { HttpMethod, Observable, RequestContext, ResponseContext, SelfDecodingBody, type HttpLibrary } from '@kubernetes/client-node';
import {
  DEFAULT_REQUEST_POLICY,
  PolicyHttpLibrary,
  TokenBucket,
  isContinuation,
  isRetryableStatus,
  retryAfterMs,
  type PolicyClock,
} from '../../lambda/adapters/kubernetes/request-policy.js';

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

describe("a list's later pages are one read: only its first page (and retries) wait for the limiter", () => {
  const ok = (): HttpLibrary => ({
    send: () => new Observable(Promise.resolve(new ResponseContext(200, {}, new SelfDecodingBody(Promise.resolve(Buffer.from('{}')))))),
  });
  const get = (query: string) => new RequestContext(`https://api.test/api/v1/pods${query}`, HttpMethod.GET);
  const policy = { ...DEFAULT_REQUEST_POLICY, qps: 1, burst: 1 };

  it.each([
    [
      'three continuation pages after a first page',
      ['?limit=500', '?limit=500&continue=a', '?limit=500&continue=b', '?limit=500&continue=c'],
      [],
    ],
    ['a second list after the first', ['?limit=500', '?limit=500&continue=a', '?limit=500'], [1_000]],
    ['two plain requests', ['', ''], [1_000]],
  ])('%s', async (_, queries, sleeps) => {
    const clock = fakeClock();
    const library = new PolicyHttpLibrary(policy, clock, ok());
    for (const query of queries) await library.send(get(query)).toPromise();
    expect(clock.slept).toEqual(sleeps);
  });

  it('tells a continuation by its continue parameter on a GET', () => {
    expect(
      [get('?continue=x'), get('?limit=1'), new RequestContext('https://api.test/x?continue=1', HttpMethod.POST)].map(isContinuation),
    ).toEqual([true, false, false]);
  });
});
