/**
 * Time for the local EC2. Every delay is computed from `now()` on each request, never from
 * timers, so a test can drive the whole model with a manual or accelerated clock.
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told: time is an argument, never a sleep. */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2025, 0, 1)) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`cannot advance the clock by ${ms} ms`);
    this.current += ms;
    return this.current;
  }
}

/** Real time running `factor` times faster from the moment of creation (e.g. 60: a minute per second). */
export function acceleratedClock(factor: number, base: Clock = systemClock): Clock {
  if (!(factor > 0)) throw new RangeError(`acceleration factor must be positive, got ${factor}`);
  const start = base.now();
  return { now: () => start + (base.now() - start) * factor };
}

export function isManualClock(clock: Clock): clock is ManualClock {
  return clock instanceof ManualClock;
}
