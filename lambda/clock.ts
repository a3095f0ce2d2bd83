/**
 * Time as the controller sees it. The composition root builds one clock and hands it to every
 * part (passes, leases, adapters, limiters), so a test or the demo that moves time moves it for
 * all of them at once. `systemClock` is the only reader of the wall clock.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
