/**
 * Timers on the local stack's clock: a timer fires once the clock shows its time, whether the
 * clock got there by running (a real timer, scaled by the clock's speed) or by a jump
 * (`advance`). The local Kubernetes API runs its watch deadlines and bookmarks on these, so a
 * manual clock moves them exactly as it moves leases and EC2's delays, and "ten minutes later"
 * ends a ten-minute watch.
 */
import type { SandboxClock } from './clock.js';

/** Runs `fire` after `ms` of clock time unless the returned function is called first. */
export type ClockTimer = (ms: number, fire: () => void) => () => void;

interface Timer {
  at: number;
  fire: () => void;
  real?: NodeJS.Timeout;
}

export function clockTimers(clock: SandboxClock): ClockTimer {
  const pending = new Set<Timer>();
  const due = () => {
    const now = clock.now();
    for (const timer of [...pending]) if (timer.at <= now) settle(timer);
  };
  const settle = (timer: Timer) => {
    if (!pending.delete(timer)) return;
    clearTimeout(timer.real);
    timer.fire();
  };
  // A manual clock never runs by itself: only its jumps fire timers.
  const arm = (timer: Timer) => {
    if (!clock.runs) return;
    const wait = Math.max(0, (timer.at - clock.now()) / clock.factor);
    timer.real = setTimeout(() => (clock.now() >= timer.at ? settle(timer) : arm(timer)), wait).unref();
  };
  clock.onAdvance(due);
  return (ms, fire) => {
    const timer: Timer = { at: clock.now() + Math.max(0, ms), fire };
    pending.add(timer);
    arm(timer);
    return () => {
      if (pending.delete(timer)) clearTimeout(timer.real);
    };
  };
}
