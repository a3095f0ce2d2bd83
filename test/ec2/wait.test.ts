/** waitForAttachment's schedule and edge cases, with a fake clock and scripted observations. */
import { describe, expect, it } from 'vitest';
import { waitForAttachment } from '../../lambda/adapters/ec2/wait.js';
import type { Ec2Attachment, Ec2AttachmentState, VolumeObservation } from '../../lambda/core/types.js';
import type { WaitRequest } from '../../lambda/ports/block-storage.js';

const volume = (state?: Ec2AttachmentState, attachTime = 0): VolumeObservation => ({
  volumeId: 'vol-1',
  exists: true,
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

const request = (target: 'attached' | 'detached', deadline: number): WaitRequest => ({
  volumeId: 'vol-1',
  instanceId: 'i-1',
  target,
  deadline,
});

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

  it('an attachment the caller calls a leftover (a lagging read of an earlier one) is not seen: the wait goes on to the new one', async () => {
    const { observe, options, sleeps } = harness([volume('attached', 10), volume('attaching', 50), volume('attached', 50)]);
    const leftover = (attachment: Ec2Attachment) => (attachment.attachTime ?? 0) < 50;
    expect(await waitForAttachment(observe, { ...request('attached', 60_000), leftover }, options)).toEqual({
      state: 'attached',
      device: '/dev/xvdaa',
      reachedTarget: true,
      attachTime: 50,
    });
    expect(sleeps).toHaveLength(2);
  });

  it('stops at once when the caller gives up on what EC2 shows, returning it', async () => {
    const { observe, options, sleeps } = harness([volume('attaching', -91_000)]);
    const seen: [string, number][] = [];
    const giveUp = (attachment: Ec2Attachment, now: number) => (seen.push([attachment.state, now]), true);
    expect(await waitForAttachment(observe, { ...request('attached', 600_000), giveUp }, options)).toEqual({
      state: 'attaching',
      device: '/dev/xvdaa',
      reachedTarget: false,
      attachTime: -91_000,
    });
    expect(seen).toEqual([['attaching', 0]]);
    expect(sleeps).toEqual([]);
  });

  it('keeps waiting while the caller does not give up, and never asks it about a missing attachment', async () => {
    const { observe, options, sleeps } = harness([volume(), volume('attaching'), volume('attached')]);
    const asked: string[] = [];
    const giveUp = (attachment: Ec2Attachment) => (asked.push(attachment.state), false);
    expect((await waitForAttachment(observe, { ...request('attached', 60_000), giveUp }, options)).reachedTarget).toBe(true);
    expect(asked).toEqual(['attaching']);
    expect(sleeps).toHaveLength(2);
  });

  it('stops waiting for an attach of a volume EC2 no longer has', async () => {
    const { observe, options, sleeps } = harness([{ volumeId: 'vol-1', exists: false, attachments: [] }]);
    expect(await waitForAttachment(observe, request('attached', 60_000), options)).toEqual({ state: 'detached', reachedTarget: false });
    expect(sleeps).toEqual([]);
  });

  it("without a caller's judgement an attach attaching for ever is waited for until the deadline", async () => {
    const { observe, options } = harness([volume('attaching', -1e9)]);
    expect(await waitForAttachment(observe, request('attached', 10_000), options)).toMatchObject({
      state: 'attaching',
      reachedTarget: false,
    });
    expect(options.now()).toBe(10_000);
  });
});
