/** Timers on the local stack's clock fire when the clock shows their time, by running or by a jump. */
import { describe, expect, it } from 'vitest';
import { ManualClock, RunningClock } from '../../sandbox/clock.js';
import { clockTimers } from '../../sandbox/clock-timers.js';

describe('clock timers', () => {
  it('on a manual clock: fire on the jump that reaches their time, in any order of scheduling, never twice', () => {
    const clock = new ManualClock();
    const timer = clockTimers(clock);
    const fired: string[] = [];
    timer(5_000, () => fired.push('five'));
    timer(1_000, () => fired.push('one'));
    const cancel = timer(2_000, () => fired.push('cancelled'));
    cancel();
    clock.advance(999);
    expect(fired).toEqual([]);
    clock.advance(4_001);
    expect(fired.sort()).toEqual(['five', 'one']);
    clock.advance(10_000);
    expect(fired).toHaveLength(2);
  });

  it('on a running clock: fire as real time passes (scaled by its speed), or at once on a jump past them', async () => {
    const clock = new RunningClock(100);
    const timer = clockTimers(clock);
    const ran = new Promise<number>((resolve) => timer(1_000, () => resolve(performance.now())));
    const started = performance.now();
    expect((await ran) - started).toBeLessThan(500);
    let jumped = false;
    timer(3_600_000, () => (jumped = true));
    clock.advance(3_600_000);
    expect(jumped).toBe(true);
  });
});
