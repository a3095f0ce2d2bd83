/**
 * The bench's side of pass-child.ts: one controller process per cluster size, passes on request.
 * The child runs from a bundle built by the stack's build (infra/handler-bundle.ts), as Lambda would load it
 * (under tsx the loader's transpiled sources and source maps would add some 300 MB of memory).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lambdaHeapFlags } from '../infra/bundling.js';
import { bundleHandler } from '../infra/handler-bundle.js';
import type { PassAnswer, PassRequest } from './pass-child.js';

const CHILD = fileURLToPath(new URL('./pass-child.ts', import.meta.url));
let built: Promise<string> | undefined;

function childBundle(): Promise<string> {
  built ??= mkdtemp(join(tmpdir(), 'bench-pass-child-')).then((dir) => bundleHandler(CHILD, dir));
  return built;
}

export interface PassChild {
  /** Runs one full pass; a pass outliving `capMs` (plus a grace) kills the child and comes back timed out. */
  run(request: PassRequest): Promise<PassAnswer & { timedOut: boolean }>;
  stop(): void;
}

/** One controller process: `dead` once it exited or was killed at a pass's cap. */
export type SpawnedChild = PassChild & { dead(): boolean };

/** A pass child; one killed at its cap is started afresh for the next pass (a cold invocation, as Lambda would). */
export async function startPassChild(
  env: Record<string, string>,
  memoryMb: number,
  spawn: (env: Record<string, string>, memoryMb: number) => Promise<SpawnedChild> = spawnPassChild,
): Promise<PassChild> {
  let current = await spawn(env, memoryMb);
  return {
    run: async (request) => {
      if (current.dead()) current = await spawn(env, memoryMb);
      return current.run(request);
    },
    stop: () => current.stop(),
  };
}

async function spawnPassChild(env: Record<string, string>, memoryMb: number): Promise<SpawnedChild> {
  const child: ChildProcess = fork(await childBundle(), [], {
    env: {
      ...env,
      POWERTOOLS_METRICS_DISABLED: 'true',
      PATH: process.env.PATH ?? '',
      BENCH_PROFILE_DIR: process.env.BENCH_PROFILE_DIR ?? '',
    },
    // The heap limits Lambda gives a function of this memory size; BENCH_CHILD_FLAGS adds V8 flags
    // for the controller alone (later flags win, e.g. a smaller function's heap limit).
    execArgv: [...lambdaHeapFlags(memoryMb), ...(process.env.BENCH_CHILD_FLAGS ?? '').split(' ').filter(Boolean)],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the controller process exited (${code}) before it was ready`)));
  });
  let dead = false;
  child.once('exit', () => (dead = true));
  return {
    dead: () => dead,
    run: (request) => {
      if (dead) return Promise.reject(new Error('the controller process is gone'));
      const started = performance.now();
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          dead = true;
          child.kill('SIGKILL');
          const wallMs = performance.now() - started;
          resolve({ wallMs, cpuMs: 0, rssBefore: 0, peakRss: 0, heapBefore: 0, timedOut: true });
        }, request.capMs + 30_000);
        child.once('message', (answer: PassAnswer) => {
          clearTimeout(timer);
          resolve({ ...answer, timedOut: false });
        });
        child.send(request);
      });
    },
    stop: () => {
      if (!dead) child.kill();
    },
  };
}
