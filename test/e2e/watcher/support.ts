/** Running a watcher invocation beside a test, and waiting for what it should do. */
import type { Controller } from '../../../lambda/composition.js';
import type { WatcherReport } from '../../../lambda/reconcile/watch/types.js';

export interface RunningWatcher {
  /** Ends it (as its deadline would) and resolves with its report. */
  stop(): Promise<WatcherReport>;
  done: Promise<WatcherReport>;
}

/** A watcher on `controller` with a budget far away, ended by the test. */
export function startWatcher(controller: Pick<Controller, 'watch' | 'clock'>, lifetimeMs = 300_000): RunningWatcher {
  const abort = new AbortController();
  const endsAt = controller.clock.now() + lifetimeMs;
  const done = controller.watch({ deadline: endsAt - 10_000, endsAt, signal: abort.signal });
  return {
    done,
    stop: () => {
      abort.abort();
      return done;
    },
  };
}

/** Polls `check` (real time) until it holds, or fails after `timeoutMs`. */
export async function eventually(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = performance.now();
  while (!check()) {
    if (performance.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
