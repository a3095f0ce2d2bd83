import { describe, expect, it } from 'vitest';
import { attachingFor, attachStuck, leftoverAttachment } from '../../lambda/core/observed.js';
import type { Ec2AttachmentState } from '../../lambda/core/types.js';
import { config } from './builders.js';

describe('attachStuck: EC2 still attaching after stuckAttachMs (DESIGN §8)', () => {
  const since = 0;
  it.each<[string, Ec2AttachmentState, number | undefined, number, boolean]>([
    ['attaching for 91 s by its AttachTime', 'attaching', 0, 91_000, true],
    ['attaching for exactly 90 s is not yet stuck', 'attaching', 1_000, 91_000, false],
    ['AttachTime wins over the fallback', 'attaching', 50_000, 91_000, false],
    ['without an AttachTime the fallback starts the clock', 'attaching', undefined, 90_001, true],
    ['without an AttachTime, 90 s after the fallback is not yet stuck', 'attaching', undefined, 90_000, false],
    ['attached long ago is not stuck', 'attached', 0, 600_000, false],
    ['detaching long ago is not a stuck attach', 'detaching', 0, 600_000, false],
  ])('%s', (_name, state, attachTime, now, stuck) => {
    const seen = attachTime === undefined ? { state } : { state, attachTime };
    expect(attachStuck(seen, since, now, config())).toBe(stuck);
  });

  it('follows the configured threshold', () => {
    expect(attachStuck({ state: 'attaching', attachTime: 0 }, 0, 31_000, config({ stuckAttachMs: 30_000 }))).toBe(true);
  });

  it('attachingFor counts from AttachTime, else from the fallback', () => {
    expect([attachingFor({ attachTime: 10 }, 0, 100), attachingFor({}, 40, 100)]).toEqual([90, 60]);
  });
});

// EC2 read lag: after a detach, DescribeVolumes may still show the attachment from before it.
describe('leftoverAttachment: a view that cannot be the attachment AttachVolume just started', () => {
  const started = { device: '/dev/xvdab', attachTime: 5_000 };
  it.each<[string, { device?: string; attachTime?: number }, { device: string; attachTime?: number }, boolean]>([
    ['the started attachment itself', { device: '/dev/xvdab', attachTime: 5_000 }, started, false],
    ['a later AttachTime on the same device', { device: '/dev/xvdab', attachTime: 6_000 }, started, false],
    ['an AttachTime from before the call', { device: '/dev/xvdab', attachTime: 4_999 }, started, true],
    ['another device', { device: '/dev/xvdaa', attachTime: 5_000 }, started, true],
    ['a view without a device or AttachTime says nothing against it', {}, started, false],
    ['without the answer AttachTime only the device tells', { device: '/dev/xvdab', attachTime: 1 }, { device: '/dev/xvdab' }, false],
  ])('%s', (_name, seen, answer, leftover) => {
    expect(leftoverAttachment(seen, answer)).toBe(leftover);
  });
});
