/** waitForAttachment's schedule and edge cases, with a fake clock and scripted observations. */
import { describe, expect, it } from 'vitest';
import { isStuck, waitForAttachment } from '../../lambda/adapters/ec2/wait.js';
import type { Ec2AttachmentState, VolumeObservation } from '../../lambda/core/types.js';
import type { WaitRequest } from '../../lambda/ports/block-storage.js';

const volume = (state?: Ec2AttachmentState, attachTime = 0): VolumeObservation => ({
  volumeId: 'vol-1', exists: true,
  attachments: state ? [{ instanceId: 'i-1', state, device: '/dev/xvdaa', attachTime }] : [],
});

function harness(script: (VolumeObservation | Error)[]) {
  let now = 0;
  const sleeps: number[] = [];
  let calls = 0;
  const observe = () => {
    const next = script[Math.min(calls, script.length - 1)];
    calls += 1;
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  };
  const options = { now: () => now, sleep: (ms: number) => (sleeps.push(ms), (now += ms), Promise.resolve()) };
  return { observe, options, sleeps, calls: () => calls };
}

const request = (target: 'attached' | 'detached', deadline: number): WaitRequest => ({ volumeId: 'vol-1', instanceId: 'i-1', target, deadline });

describe('waitForAttachment', () => {
  it('backs off 1 s, ×1.8, until the target', async () => {
    const { observe, options, sleeps } = harness([volume('attaching'), volume('attaching'), volume('attaching'), volume('attached')]);
    const result = await waitForAttachment(observe, request('attached', 60_000), options);
    expect(result).toEqual({ state: 'attached', device: '/dev/xvdaa', reachedTarget: true, attachTime: 0 });
    expect(sleeps.map(Math.round)).toEqual([1_000, 1_800, 3_240]);
  });

  it('the last sleep is cut to the deadline, then it returns what it saw', async () => {
    const { observe, options, sleeps } = harness([volume('attaching')]);
    const result = await waitForAttachment(observe, request('attached', 2_000), options);
    expect(result).toMatchObject({ state: 'attaching', reachedTarget: false });
    expect(sleeps.map(Math.round)).toEqual([1_000, 1_000]);
  });

  it('no attachment for the instance reads as detached', async () => {
    const { observe, options } = harness([volume()]);
    expect(await waitForAttachment(observe, request('detached', 10_000), options)).toEqual({ state: 'detached', reachedTarget: true });
  });

  it('a failed poll is retried; the next answer counts', async () => {
    const { observe, options, calls } = harness([new Error('throttled'), volume('attached')]);
    expect((await waitForAttachment(observe, request('attached', 10_000), options)).reachedTarget).toBe(true);
    expect(calls()).toBe(2);
  });

  it('throws only when EC2 never answered before the deadline', async () => {
    const { observe, options } = harness([new Error('unreachable')]);
    await expect(waitForAttachment(observe, request('attached', 3_000), options)).rejects.toThrow('unreachable');
  });

  it('an attach attaching for more than 90 s is returned at once as stuck', async () => {
    const { observe, options, sleeps } = harness([volume('attaching', -91_000)]);
    expect(await waitForAttachment(observe, request('attached', 600_000), options)).toMatchObject({ state: 'attaching', stuck: true, reachedTarget: false });
    expect(sleeps).toEqual([]);
  });
});

describe('isStuck', () => {
  it.each([
    ['attaching for 91 s', 'attaching', 0, true],
    ['attaching for exactly 90 s', 'attaching', 1_000, false],
    ['attached long ago', 'attached', 0, false],
  ] as const)('%s → %s', (_name, state, attachTime, stuck) => {
    expect(isStuck({ state, attachTime }, 91_000)).toBe(stuck);
  });

  it('without an AttachTime nothing is known to be stuck', () => {
    expect(isStuck({ state: 'attaching' }, 1e12)).toBe(false);
  });
});
