/** The one poll every pass uses for what no event announces (pass/poll.ts). */
import { describe, expect, it } from 'vitest';
import { poll, type PollOptions } from '../../../lambda/reconcile/pass/poll.js';

/** A clock that moves only by sleeping (`still`: not even then); every look and pause is written down. */
function polling(o: { doneAt?: number; still?: boolean } = {}) {
  let now = 0;
  let looks = 0;
  const calls: string[] = [];
  const deps = {
    clock: () => now,
    sleep: (ms: number) => (calls.push(`sleep ${ms}`), (now += o.still === true ? 0 : ms), Promise.resolve()),
  };
  const look = () => {
    calls.push(`look at ${now}`);
    if (++looks > 100) throw new Error('polled without end');
    return Promise.resolve(looks === o.doneAt);
  };
  const run = (options: Omit<PollOptions, 'until'> & { until?: number }) => poll(deps, { until: 1_000, ...options }, look);
  return { calls, run };
}

describe('polling for what no event announces', () => {
  it('at-until: pauses grow by half from 200 ms, and the last is shortened so the last look falls at the end', async () => {
    const p = polling();
    await p.run({ lastLook: 'at-until' });
    expect(p.calls).toEqual([
      'look at 0',
      'sleep 200',
      'look at 200',
      'sleep 300',
      'look at 500',
      'sleep 450',
      'look at 950',
      'sleep 50',
      'look at 1000',
    ]);
  });

  it('before-until: no pause that would pass the end, so the last look comes before it', async () => {
    const p = polling();
    await p.run({ lastLook: 'before-until' });
    expect(p.calls).toEqual(['look at 0', 'sleep 200', 'look at 200', 'sleep 300', 'look at 500', 'sleep 450', 'look at 950']);
  });

  it('pauses stop growing at maxMs', async () => {
    const p = polling();
    await p.run({ lastLook: 'before-until', until: 3_000, maxMs: 400 });
    expect(p.calls.filter((c) => c.startsWith('sleep'))).toEqual([
      'sleep 200',
      'sleep 300',
      'sleep 400',
      'sleep 400',
      'sleep 400',
      'sleep 400',
      'sleep 400',
      'sleep 400',
    ]);
  });

  it('stops at the first look that says done', async () => {
    const p = polling({ doneAt: 2 });
    await p.run({ lastLook: 'at-until' });
    expect(p.calls).toEqual(['look at 0', 'sleep 200', 'look at 200']);
  });

  it.each<PollOptions['lastLook']>(['at-until', 'before-until'])(
    '%s: a clock that sleeping does not move still ends the poll, by the pauses slept',
    async (lastLook) => {
      const p = polling({ still: true });
      await p.run({ lastLook });
      expect(p.calls.filter((c) => c.startsWith('sleep'))).toEqual(
        lastLook === 'at-until' ? ['sleep 200', 'sleep 300', 'sleep 450', 'sleep 50'] : ['sleep 200', 'sleep 300', 'sleep 450'],
      );
    },
  );

  it('a poll whose time is already up looks once', async () => {
    const p = polling();
    await p.run({ lastLook: 'at-until', until: 0 });
    expect(p.calls).toEqual(['look at 0']);
  });
});
