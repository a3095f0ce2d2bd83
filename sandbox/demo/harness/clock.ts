/**
 * The story's time, shared by the controller, the local EC2 and the simulated kubelet. Either
 * manual (moves only when told: the fault suite) or real time sped up by a factor that can also
 * jump ahead (the demo: EC2's delays play fast, and "six minutes later" takes no time at all).
 */
import { ManualClock } from '../../ec2/clock.js';

export interface StoryClock {
  now(): number;
  /** Moves time forward by `ms` story milliseconds; returns the new time. */
  advance(ms: number): number;
  /** Story milliseconds per real millisecond (1 for a manual clock: it does not run by itself). */
  readonly factor: number;
}

export class AcceleratedClock implements StoryClock {
  private readonly realStart = performance.now();
  private jumped = 0;

  constructor(readonly factor: number, private readonly start = Date.UTC(2026, 2, 2, 9, 0, 0)) {
    if (!(factor >= 1)) throw new RangeError(`speed must be at least 1, got ${factor}`);
  }

  now(): number {
    return Math.floor(this.start + (performance.now() - this.realStart) * this.factor + this.jumped);
  }

  advance(ms: number): number {
    if (!(ms >= 0)) throw new RangeError(`cannot go back in time (${ms} ms)`);
    this.jumped += ms;
    return this.now();
  }

  /** Story time since the start. */
  elapsed(): number {
    return this.now() - this.start;
  }
}

export class SteppedClock extends ManualClock implements StoryClock {
  readonly factor = 1;
}
