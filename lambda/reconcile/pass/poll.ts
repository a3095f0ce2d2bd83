/**
 * Polling the API server for what no event announces (kcm creating or deleting a VolumeAttachment):
 * one look, then pauses that start at 200 ms and grow by half each time (up to `maxMs`), until the
 * look says it is done or the time is up. Both ways to end are used: a poll that must not miss what
 * appears at the last moment looks once more exactly at `until`; one that another pass will finish
 * anyway stops rather than pause past it.
 */
import type { ReconcileDeps } from './types.js';

const FIRST_PAUSE_MS = 200;
const GROWTH = 1.5;

export interface PollOptions {
  /** Epoch ms (the deps' clock) when the poll ends. */
  until: number;
  /** The longest pause; unbounded when absent. */
  maxMs?: number;
  /** `at-until`: the last pause is shortened so that the last look falls at `until`; `before-until`: no pause that would pass it. */
  lastLook: 'at-until' | 'before-until';
}

/**
 * Runs `look` until it returns true or the time is up. Time is the clock's, or the pauses slept if
 * they add up to more: a clock that sleeping does not move (a test's, the fault suite's) still ends the poll.
 */
export async function poll(
  deps: Pick<ReconcileDeps, 'clock' | 'sleep'>,
  options: PollOptions,
  look: () => Promise<boolean>,
): Promise<void> {
  const startedAt = deps.clock();
  let slept = 0;
  for (let delay = FIRST_PAUSE_MS; ; delay = Math.min(delay * GROWTH, options.maxMs ?? Infinity)) {
    if (await look()) return;
    const left = options.until - Math.max(deps.clock(), startedAt + slept);
    if (options.lastLook === 'at-until' ? left <= 0 : delay > left) return;
    const pause = options.lastLook === 'at-until' ? Math.min(Math.round(delay), left) : Math.round(delay);
    await deps.sleep(pause);
    slept += pause;
  }
}
