import { describe, expect, it } from 'vitest';
import { startPassChild, type SpawnedChild } from '../../bench/child-runner.js';
import type { PassRequest } from '../../bench/pass-child.js';

const request: PassRequest = { capMs: 1_000, clockOffsetMs: 0 };

/** Children that answer with their number; the `killedAt`-th pass of a child times out and kills it. */
function spawner(killedAt: number) {
  const spawned: number[] = [];
  const spawn = (): Promise<SpawnedChild> => {
    const id = spawned.length + 1;
    spawned.push(id);
    let dead = false;
    let passes = 0;
    return Promise.resolve({
      dead: () => dead,
      run: () => {
        passes += 1;
        if (passes === killedAt) dead = true;
        return Promise.resolve({ wallMs: id, cpuMs: 0, rssBefore: 0, peakRss: 0, heapBefore: 0, timedOut: dead });
      },
      stop: () => (dead = true),
    });
  };
  return { spawn, spawned };
}

describe('the bench pass child', () => {
  it('keeps one controller process while its passes end within their cap', async () => {
    const { spawn, spawned } = spawner(Number.POSITIVE_INFINITY);
    const child = await startPassChild({}, 1_024, spawn);
    for (let i = 0; i < 3; i++) expect((await child.run(request)).wallMs).toBe(1);
    expect(spawned).toEqual([1]);
  });

  it('starts a fresh process (a cold invocation) for the pass after one killed at its cap', async () => {
    const { spawn, spawned } = spawner(2);
    const child = await startPassChild({}, 1_024, spawn);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await child.run(request));
    expect(answers.map((a) => [a.wallMs, a.timedOut])).toEqual([
      [1, false],
      [1, true],
      [2, false],
      [2, true],
    ]);
    expect(spawned).toEqual([1, 2]);
  });
});
