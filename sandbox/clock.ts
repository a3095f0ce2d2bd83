/**
 * The local stack's one clock family. Every part of a local run reads the same clock: the
 * controller (passes, leases, adapters, limiters), the local EC2 (attach and state delays) and the
 * simulated kubelet. Two kinds:
 * - `ManualClock` moves only when told (the fault suite, model tests): sleeping takes no time.
 * - `RunningClock` is real time, optionally sped up, that can also jump ahead (e2e tests, the
 *   demo, the bench): EC2's short delays run out by themselves while "six minutes later" takes
 *   no waiting at all.
 */
import type { Clock } from '../lambda/clock.js';

export interface SandboxClock extends Clock {
  /** Moves time forward by `ms`; returns the new time. */
  advance(ms: number): number;
  /** Clock milliseconds per real millisecond (1 for a manual clock: it does not run by itself). */
  readonly factor: number;
  /** False for a manual clock: only `advance` moves it. */
  readonly runs: boolean;
  /** Called after every `advance` (timers on this clock fire then); returns the function that stops it. */
  onAdvance(listener: () => void): () => void;
}

/** The listeners of one clock's jumps. */
class Jumps {
  private readonly listeners = new Set<() => void>();

  add(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/** A fixed instant local runs start from, so logs and reports read the same run after run. */
export const SANDBOX_EPOCH = Date.UTC(2026, 2, 2, 9, 0, 0);

function checkAdvance(ms: number): void {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`cannot advance the clock by ${ms} ms`);
}

export class ManualClock implements SandboxClock {
  readonly factor = 1;
  readonly runs = false;
  private readonly jumps = new Jumps();

  constructor(private current = SANDBOX_EPOCH) {}

  now(): number {
    return this.current;
  }

  /** Sleeping never waits: the caller goes on at once, on the same time (time is an argument here). */
  sleep(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }

  advance(ms: number): number {
    checkAdvance(ms);
    this.current += ms;
    this.jumps.notify();
    return this.current;
  }

  onAdvance(listener: () => void): () => void {
    return this.jumps.add(listener);
  }
}

export class RunningClock implements SandboxClock {
  readonly runs = true;
  private readonly realStart = performance.now();
  private jumped = 0;
  private readonly jumps = new Jumps();

  /** `start`: the time the clock shows now (default: the wall clock); `factor`: its speed. */
  constructor(
    readonly factor = 1,
    private readonly start = Date.now(),
  ) {
    if (!(factor > 0)) throw new RangeError(`speed must be positive, got ${factor}`);
  }

  now(): number {
    return Math.floor(this.start + (performance.now() - this.realStart) * this.factor + this.jumped);
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms) / this.factor));
  }

  advance(ms: number): number {
    checkAdvance(ms);
    this.jumped += ms;
    this.jumps.notify();
    return this.now();
  }

  onAdvance(listener: () => void): () => void {
    return this.jumps.add(listener);
  }

  /** Clock time since the start. */
  elapsed(): number {
    return this.now() - this.start;
  }
}
