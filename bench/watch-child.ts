/**
 * The watcher alone in its own process, as in its Lambda execution environment (bundled, with the
 * heap limits Lambda gives its memory size): it watches for as long as the bench asks and answers
 * with its CPU time, its peak resident memory and its largest V8 heap. The sandboxes stay in the
 * bench's process, so neither their CPU nor their memory is counted here.
 */
import { createController } from '../lambda/composition.js';
import { loadConfig } from '../lambda/config.js';
import type { WatcherReport } from '../lambda/reconcile/watch/types.js';

export interface WatchRequest {
  /** The stack's clock minus the wall clock: the child's clock shows the stack's time. */
  clockOffsetMs: number;
  /** Real time to watch for; the bench ends the watcher with `stop` sooner if it is done. */
  durationMs: number;
}

export interface WatchAnswer {
  cpuMs: number;
  rssBefore: number;
  peakRss: number;
  heapBefore: number;
  peakHeap: number;
  report?: WatcherReport;
  error?: string;
}

let offset = 0;
const clock = { now: () => Date.now() + offset, sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)) };
const controller = createController(loadConfig(process.env, 'local'), { clock });
let abort: AbortController | undefined;

async function watch(request: WatchRequest): Promise<WatchAnswer> {
  offset = request.clockOffsetMs;
  const rssBefore = process.memoryUsage.rss();
  const heapBefore = process.memoryUsage().heapUsed;
  let peakHeap = heapBefore;
  const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 100);
  const cpu = process.cpuUsage();
  abort = new AbortController();
  const endsAt = clock.now() + request.durationMs;
  const base = () => {
    clearInterval(sampler);
    const used = process.cpuUsage(cpu);
    return { cpuMs: (used.user + used.system) / 1000, rssBefore, peakRss: process.resourceUsage().maxRSS * 1024, heapBefore, peakHeap };
  };
  try {
    const report = await controller.watch({ deadline: endsAt, endsAt, signal: abort.signal });
    return { ...base(), report };
  } catch (error) {
    return { ...base(), error: error instanceof Error ? error.message : String(error) };
  }
}

process.on('message', (message: WatchRequest | 'stop') => {
  if (message === 'stop') return abort?.abort();
  void watch(message).then((answer) => process.send?.(answer));
});
process.send?.('ready');
