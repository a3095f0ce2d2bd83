/** A pass timed by wall clock and process CPU, abandoned (not awaited) when it outlives its cap. */
import { setTimeout as sleep } from 'node:timers/promises';

export interface Timed<T> {
  value?: T;
  wallMs: number;
  /** CPU of the whole process: the controller and the in-process sandboxes serving it. */
  cpuMs: number;
  timedOut: boolean;
  error?: string;
}

export async function timed<T>(run: (signal: AbortSignal) => Promise<T>, capMs: number): Promise<Timed<T>> {
  const abort = new AbortController();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const work = run(abort.signal).then(
    (value) => ({ value }),
    (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
  );
  const outcome = await Promise.race([work, sleep(capMs).then(() => 'timeout' as const)]);
  const used = process.cpuUsage(cpu);
  const base = { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
  if (outcome === 'timeout') {
    abort.abort();
    return { ...base, timedOut: true };
  }
  return { ...base, timedOut: false, ...outcome };
}
