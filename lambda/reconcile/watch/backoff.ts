/** The watcher's retry backoff: `initialMs`, doubling with each attempt, capped at `maxMs`. */
export function backoffMs(attempt: number, retry: { initialMs: number; maxMs: number }): number {
  return Math.min(retry.maxMs, retry.initialMs * 2 ** Math.max(0, attempt - 1));
}
