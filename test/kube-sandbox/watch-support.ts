/**
 * Watch helpers for the sandbox's tests: a raw HTTPS watch stream read line by line (to see
 * the wire as sent), and a scheduler whose time only moves when the test says so.
 */
import { request } from 'node:https';
import type { KubeSandbox } from '../../sandbox/kube/index.js';
import type { WatchScheduler } from '../../sandbox/kube/watch.js';

export interface WireEvent {
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever the server sent
  object: any;
}

export interface OpenWatch {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  events: WireEvent[];
  /** Resolves once `count` events in all have arrived. */
  until(count: number): Promise<WireEvent[]>;
  /** Resolves when the server ends the response (its terminating chunk arrived). */
  ended: Promise<void>;
  close(): void;
}

export function openWatch(sandbox: KubeSandbox, path: string, accept?: string): Promise<OpenWatch> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, sandbox.url),
      { ca: sandbox.caPem, headers: { authorization: `Bearer ${sandbox.token}`, ...(accept ? { accept } : {}) } },
      (response) => {
        const events: WireEvent[] = [];
        const waiters: { count: number; resolve: (events: WireEvent[]) => void }[] = [];
        let buffered = '';
        const wake = () => {
          for (const waiter of [...waiters])
            if (events.length >= waiter.count) {
              waiters.splice(waiters.indexOf(waiter), 1);
              waiter.resolve(events.slice(0, waiter.count));
            }
        };
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          buffered += chunk;
          const lines = buffered.split('\n');
          buffered = lines.pop() ?? '';
          for (const line of lines) if (line.trim() !== '') events.push(JSON.parse(line) as WireEvent);
          wake();
        });
        const ended = new Promise<void>((done, failed) => {
          response.on('end', () => done());
          response.on('error', failed);
        });
        // A watch the test closes itself ends in ECONNRESET: only a test awaiting `ended` cares.
        ended.catch(() => undefined);
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          events,
          until: (count) =>
            new Promise((done) => {
              waiters.push({ count, resolve: done });
              wake();
            }),
          ended,
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A WatchScheduler driven by `advance(ms)`, so timeouts run out without waiting. */
export function manualScheduler() {
  let now = 0;
  const timers = new Set<{ at: number; fire: () => void }>();
  const schedule: WatchScheduler = (ms, fire) => {
    const timer = { at: now + ms, fire };
    timers.add(timer);
    return () => timers.delete(timer);
  };
  return {
    schedule,
    pending: () => timers.size,
    advance(ms: number) {
      now += ms;
      for (const timer of [...timers])
        if (timer.at <= now) {
          timers.delete(timer);
          timer.fire();
        }
    },
  };
}
