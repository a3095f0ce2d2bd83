import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PolicyClock, RetryNotice } from '../../lambda/adapters/kubernetes/request-policy.js';
import { node, startHarness, type Harness } from './support.js';

// Sleeps are recorded and shortened: the test checks the delays chosen, not the wall clock.
const slept: number[] = [];
const clock: PolicyClock = { now: () => Date.now(), random: () => 0.5, sleep: (ms) => (slept.push(ms), Promise.resolve()) };
const notices: RetryNotice[] = [];

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    clients: {
      clock,
      onRetry: (n) => notices.push(n),
      policy: { maxRetryAfterMs: 10_000, backoffBaseMs: 100, backoffMaxMs: 1_000, maxAttempts: 4 },
    },
  });
  h.sandbox.seed([node('n1')]);
});
afterAll(() => h.stop());
beforeEach(() => {
  h.sandbox.faults.clear();
  h.sandbox.resetRequests();
  slept.length = 0;
  notices.length = 0;
});

const nodeGet = { method: 'GET', path: '/api/v1/nodes/n1' };
const attempts = () => h.sandbox.requests().length;

describe('retries: 429 and 5xx with backoff, honouring Retry-After; other 4xx at once', () => {
  it('429 twice: waits what Retry-After says (1 s) and succeeds on the third attempt', async () => {
    h.sandbox.faults.failNext(nodeGet, 2, 429);
    expect((await h.cluster.readNode('n1'))?.metadata.name).toBe('n1');
    expect(attempts()).toBe(3);
    expect(slept).toEqual([1_000, 1_000]);
    expect(notices.map((n) => n.cause)).toEqual([429, 429]);
  });

  it('500 twice: exponential backoff (100 ms, 200 ms) and success', async () => {
    h.sandbox.faults.failNext(nodeGet, 2, 500);
    await h.cluster.readNode('n1');
    expect(slept).toEqual([100, 200]);
  });

  it("a 5xx that persists fails after maxAttempts attempts with the server's status", async () => {
    h.sandbox.faults.failNext(nodeGet, 10, 503);
    await expect(h.cluster.readNode('n1')).rejects.toThrow(/503 ServiceUnavailable/);
    expect(attempts()).toBe(4);
  });

  it.each([[400], [401], [403], [422]])('%i is not retried', async (code) => {
    h.sandbox.faults.failNext(nodeGet, 1, code);
    await expect(h.cluster.readNode('n1')).rejects.toThrow(new RegExp(`failed: ${code}`));
    expect(attempts()).toBe(1);
    expect(slept).toEqual([]);
  });

  it('writes are retried too (their guards make a repeat safe)', async () => {
    h.sandbox.faults.failNext({ method: 'PATCH', path: '/api/v1/nodes/n1/status' }, 1, 500);
    expect(await h.cluster.setVolumesAttached('n1', [{ name: 'kubernetes.io/csi/ebs.csi.aws.com^vol-1', devicePath: '/dev/xvdaa' }])).toBe(
      'updated',
    );
  });
});

describe('per-request timeout', () => {
  it('cuts a slow answer at the timeout and retries; a server that stays slow fails', async () => {
    const slow = await startHarness({ clients: { clock, policy: { timeoutMs: 100, maxAttempts: 2 } } });
    try {
      slow.sandbox.seed([node('n1')]);
      slow.sandbox.faults.latency(400, nodeGet);
      const started = Date.now();
      await expect(slow.cluster.readNode('n1')).rejects.toThrow(/GET https:\/\/.*\/api\/v1\/nodes\/n1 failed: .*(timeout|aborted)/i);
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      await slow.stop();
    }
  });
});
