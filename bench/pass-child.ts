/**
 * The controller alone in its own process, as in a Lambda execution environment: built from the
 * environment the local stack hands it, it runs the full passes the bench asks for over IPC and
 * answers with the pass's wall time, this process's CPU and its peak resident memory. The
 * sandboxes stay in the bench's process, so neither their CPU nor their memory is counted here.
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { createController } from '../lambda/composition.js';
import { DEFAULT_PAGING } from '../lambda/adapters/kubernetes/paged-list.js';
import { loadConfig } from '../lambda/config.js';
import { servicesByEndpoint, traceRequests, type TracedRequest } from './request-trace.js';

export interface PassRequest {
  capMs: number;
  /** The stack's clock minus the wall clock: the child's clock shows the stack's time. */
  clockOffsetMs: number;
  /** Today's complete pass whatever covers the cluster ("before"); otherwise the pass decides (covered when a watcher covers). */
  complete?: boolean;
  /** Trace the pass's requests (bench/covered-trace.ts): each with its service, label and epoch times. */
  trace?: boolean;
}

export interface PassAnswer {
  wallMs: number;
  cpuMs: number;
  /** Resident set before the pass and its peak so far (the process's high-water mark), in bytes. */
  rssBefore: number;
  peakRss: number;
  /** V8 heap in use before and after the pass. */
  heapBefore: number;
  /** The pass was covered (a live watcher covers the cluster: nothing listed, a rolling slice verified). */
  covered?: boolean;
  actions?: number;
  converged?: boolean;
  /** A takeover pass: claimed volumes it left to the next invocation. */
  takeoverLeft?: number;
  error?: string;
  /** The pass's requests as this process saw them (epoch ms), when asked to trace. */
  requests?: TracedRequest[];
}

let offset = 0;
const clock = { now: () => Date.now() + offset, sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)) };
const pageSize = Number(process.env.BENCH_LIST_PAGE_SIZE ?? DEFAULT_PAGING.pageSize);
const controller = createController(loadConfig(process.env, 'local'), { clock, tuning: { kubernetes: { paging: { pageSize } } } });

/** `--profile`: each pass's CPU profile and sampled allocations, written where the bench says (open in Chrome DevTools). */
const profileDir = process.env.BENCH_PROFILE_DIR;
let passes = 0;

async function profiled<T>(run: () => Promise<T>): Promise<T> {
  if (profileDir === undefined || profileDir === '') return run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  await session.post('HeapProfiler.startSampling', { samplingInterval: 64 * 1024 });
  try {
    return await run();
  } finally {
    const name = join(profileDir, `pass-${process.pid}-${++passes}`);
    const { profile } = await session.post('Profiler.stop');
    const { profile: heap } = await session.post('HeapProfiler.stopSampling');
    await writeFile(`${name}.cpuprofile`, JSON.stringify(profile));
    await writeFile(`${name}.heapprofile`, JSON.stringify(heap));
    session.disconnect();
  }
}

async function runPass(request: PassRequest): Promise<PassAnswer> {
  offset = request.clockOffsetMs;
  const rssBefore = process.memoryUsage.rss();
  const heapBefore = process.memoryUsage().heapUsed;
  const cpu = process.cpuUsage();
  const tracing = request.trace === true ? traceRequests(awsServices()) : undefined;
  const started = performance.now();
  const base = () => {
    const used = process.cpuUsage(cpu);
    const peakRss = process.resourceUsage().maxRSS * 1024;
    const requests = tracing
      ?.stop()
      .map((r) => ({ ...r, startMs: r.startMs + performance.timeOrigin, endMs: r.endMs + performance.timeOrigin }));
    const wallMs = performance.now() - started;
    return { wallMs, cpuMs: (used.user + used.system) / 1000, rssBefore, peakRss, heapBefore, ...(requests ? { requests } : {}) };
  };
  try {
    const options = request.complete === true ? { complete: true } : {};
    const report = await profiled(() => controller.fullPass({ deadline: clock.now() + request.capMs }, options));
    const takeover = report.takeover === undefined ? {} : { takeoverLeft: report.takeover.left };
    return {
      ...base(),
      actions: report.actions.length,
      converged: report.converged,
      covered: report.coverage?.covered === true,
      ...takeover,
    };
  } catch (error) {
    return { ...base(), error: error instanceof Error ? error.message : String(error) };
  }
}

/** DynamoDB and EC2 by their endpoints (a covered pass lists nothing from Kubernetes). */
function awsServices() {
  const endpoints = { DynamoDB: process.env.AWS_ENDPOINT_URL_DYNAMODB, EC2: process.env.AWS_ENDPOINT_URL_EC2 };
  return servicesByEndpoint(Object.fromEntries(Object.entries(endpoints).filter((e): e is [string, string] => e[1] !== undefined)));
}

process.on('message', (request: PassRequest) => {
  void runPass(request).then((answer) => process.send?.(answer));
});
process.send?.('ready');
