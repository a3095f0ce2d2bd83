/**
 * `npm run bench -- --watcher-size [--changes 200] [--watcher-memory 512]`: the watcher's memory and
 * CPU, from which its function size is chosen. The watcher runs bundled in a process of its own with
 * the heap limits Lambda gives that memory size, in attacher mode, while the side-by-side churn plays
 * (a pod bound every 500 ms, deleted 15 s later; kcm creates and deletes its VolumeAttachment, EC2
 * takes 2 s to attach and 3 s to detach, 10 ms added round trip).
 */
import { fork } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lambdaHeapFlags } from '../infra/bundling.js';
import { WATCHER_KUBE_API_ENV } from '../infra/function-sizes.js';
import type { WorldVolume } from '../sandbox/world.js';
import { bundleHandler } from '../infra/handler-bundle.js';
import { churn } from './side-by-side/scenes.js';
import { startStage } from './side-by-side/stage.js';
import type { WatchAnswer, WatchRequest } from './watch-child.js';

const CHILD = fileURLToPath(new URL('./watch-child.ts', import.meta.url));

export interface WatcherSize {
  memoryMb: number;
  changes: number;
  /** The watcher's own counts: changes received, passes run. */
  watched: number;
  passes: number;
  wallMs: number;
  cpuMs: number;
  rssBeforeMb: number;
  peakRssMb: number;
  peakHeapMb: number;
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

export async function measureWatcherSize(o: { changes: number; memoryMb: number }): Promise<WatcherSize> {
  const stage = await startStage({
    mode: 'attacher',
    nodes: 20,
    rttMs: 10,
    attachMs: 2_000,
    detachMs: 3_000,
    unmountMs: 1_000,
    env: WATCHER_KUBE_API_ENV,
  });
  const child = fork(await bundleHandler(CHILD, await mkdtemp(join(tmpdir(), 'bench-watch-child-'))), [], {
    env: { ...stage.world.env, POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'WARN', PATH: process.env.PATH ?? '' },
    execArgv: lambdaHeapFlags(o.memoryMb),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`the watcher process exited (${code}) before it was ready`)));
    });
    const made: WorldVolume[] = [];
    for (let i = 0; i < o.changes; i++) made.push(await stage.world.createVolume({ name: `data-${i}` }));
    const answered = new Promise<WatchAnswer>((resolve) => child.once('message', (answer: WatchAnswer) => resolve(answer)));
    const request: WatchRequest = { clockOffsetMs: stage.clock.now() - Date.now(), durationMs: 3_600_000 };
    child.send(request);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    stage.slowDown();
    const started = performance.now();
    const idle = {
      podBound: () => undefined,
      podDeleted: () => undefined,
      busy: () => false,
      nextFullPassAt: () => undefined,
      stop: () => Promise.resolve(),
    };
    await churn(stage, idle, made, { spacingMs: 500, lifetimeMs: 15_000 }, { count: 0, ms: 0 });
    const wallMs = performance.now() - started;
    child.send('stop');
    const answer = await answered;
    if (answer.error !== undefined) throw new Error(`the watcher failed: ${answer.error}`);
    return {
      memoryMb: o.memoryMb,
      changes: o.changes,
      watched: answer.report?.changes ?? 0,
      passes: answer.report?.passes ?? 0,
      wallMs,
      cpuMs: answer.cpuMs,
      rssBeforeMb: mb(answer.rssBefore),
      peakRssMb: mb(answer.peakRss),
      peakHeapMb: mb(answer.peakHeap),
    };
  } finally {
    child.kill();
    await stage.stop();
  }
}
