/**
 * The EC2 adapter where time matters: waiting with backoff and deadlines (accelerated sandbox
 * delays), attaches stuck in `attaching` (the caller gives up on them), throttling the SDK retries through, and network failures.
 */
import { DescribeVolumesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Ec2BlockStorage } from '../../lambda/adapters/ec2/block-storage.js';
import { DEFAULT_PLAN_CONFIG } from '../../lambda/core/config.js';
import { attachStuck } from '../../lambda/core/observed.js';
import type { Ec2Attachment } from '../../lambda/core/types.js';
import { ManualClock } from '../../sandbox/clock.js';
import type { LocalEc2, LocalEc2Options } from '../../sandbox/ec2/server.js';
import { clientFor, createVolume, localEc2, runInstance } from './support.js';
import { memoryClaims } from '../support/device-claims.js';
import { systemClock } from '../../lambda/clock.js';

describe('waitFor with accelerated delays (attach and detach take 150 ms)', () => {
  let ec2: LocalEc2;
  let storage: Ec2BlockStorage;
  let client: EC2Client;
  beforeAll(async () => {
    ec2 = await localEc2({ delays: { attachMs: 150, detachMs: 150 } });
    client = await clientFor(ec2);
    storage = new Ec2BlockStorage({ client, clock: systemClock, wait: { initialDelayMs: 10, factor: 1.8 } });
  });
  afterAll(() => ec2.stop());

  it('returns once attached, with the device', async () => {
    const instanceId = await runInstance(client);
    const volumeId = await createVolume(client);
    const started = await storage.attach({ volumeId, instanceId, devices: memoryClaims() });
    const result = await storage.waitFor({ volumeId, instanceId, target: 'attached', deadline: Date.now() + 5_000 });
    expect(result).toMatchObject({ state: 'attached', reachedTarget: true, device: 'device' in started ? started.device : '' });
  });

  it('returns what it last saw when the deadline passes, without throwing', async () => {
    const instanceId = await runInstance(client);
    const volumeId = await createVolume(client);
    ec2.stickAttach(volumeId); // still attaching at the deadline however slow the machine is
    await storage.attach({ volumeId, instanceId, devices: memoryClaims() });
    const result = await storage.waitFor({ volumeId, instanceId, target: 'attached', deadline: Date.now() + 30 });
    expect(result).toMatchObject({ state: 'attaching', reachedTarget: false });
  });

  it('waits for detached: the attachment disappears from the volume', async () => {
    const instanceId = await runInstance(client);
    const volumeId = await createVolume(client);
    await storage.attach({ volumeId, instanceId, devices: memoryClaims() });
    await storage.waitFor({ volumeId, instanceId, target: 'attached', deadline: Date.now() + 5_000 });
    await storage.detach({ volumeId, instanceId, force: false });
    expect(await storage.waitFor({ volumeId, instanceId, target: 'detached', deadline: Date.now() + 5_000 })).toEqual({
      state: 'detached',
      reachedTarget: true,
    });
  });

  it('stops waiting for an attach of a volume that no longer exists', async () => {
    const result = await storage.waitFor({
      volumeId: 'vol-00000000000000bad',
      instanceId: 'i-00000000000000bad',
      target: 'attached',
      deadline: Date.now() + 60_000,
    });
    expect(result).toEqual({ state: 'detached', reachedTarget: false });
  });
});

describe('stuck attach and busy detach (manual clock)', () => {
  const clock = new ManualClock();
  let ec2: LocalEc2;
  let storage: Ec2BlockStorage;
  let client: EC2Client;
  beforeAll(async () => {
    ec2 = await localEc2({ clock, delays: { attachMs: 1_000, detachMs: 1_000 } });
    client = await clientFor(ec2);
    storage = new Ec2BlockStorage({ client, clock: { now: () => clock.now(), sleep: (ms) => Promise.resolve(void clock.advance(ms)) } });
  });
  afterAll(() => ec2.stop());

  it('an attach stuck in attaching is reported with its AttachTime, and the wait ends at once when the caller gives up on it', async () => {
    const instanceId = await runInstance(client);
    const volumeId = await createVolume(client);
    ec2.stickAttach(volumeId);
    const startedAt = clock.now();
    await storage.attach({ volumeId, instanceId, devices: memoryClaims() });
    const giveUp = (seen: Ec2Attachment, now: number) => attachStuck(seen, startedAt, now, DEFAULT_PLAN_CONFIG);
    const early = await storage.waitFor({ volumeId, instanceId, target: 'attached', deadline: clock.now() + 30_000, giveUp });
    expect(early).toEqual({ state: 'attaching', reachedTarget: false, device: expect.any(String) as string, attachTime: startedAt });
    clock.advance(61_000);
    const late = await storage.waitFor({ volumeId, instanceId, target: 'attached', deadline: clock.now() + 600_000, giveUp });
    expect(late).toMatchObject({ state: 'attaching', reachedTarget: false, attachTime: startedAt });
    expect(clock.now() - startedAt).toBeLessThan(120_000); // it returned at once instead of waiting out 10 minutes
  });

  it('a detach stuck busy stays busy without Force and finishes with Force', async () => {
    const instanceId = await runInstance(client);
    const volumeId = await createVolume(client);
    await storage.attach({ volumeId, instanceId, devices: memoryClaims() });
    clock.advance(1_000);
    ec2.stickDetach(volumeId);
    await storage.detach({ volumeId, instanceId, force: false });
    expect(await storage.waitFor({ volumeId, instanceId, target: 'detached', deadline: clock.now() + 20_000 })).toMatchObject({
      state: 'busy',
      reachedTarget: false,
    });
    expect(await storage.detach({ volumeId, instanceId, force: true })).toEqual({ kind: 'started' });
    expect(await storage.waitFor({ volumeId, instanceId, target: 'detached', deadline: clock.now() + 20_000 })).toEqual({
      state: 'detached',
      reachedTarget: true,
    });
  });
});

describe('throttling and network failures', () => {
  /** Each test's own local EC2, so no test meets a bucket an earlier one drained (or a throttle it turned off). */
  const started: LocalEc2[] = [];
  const ownEc2 = async (throttle: LocalEc2Options['throttle']) => {
    const ec2 = await localEc2({ throttle });
    started.push(ec2);
    return ec2;
  };
  afterEach(async () => {
    for (const ec2 of started.splice(0)) await ec2.stop();
  });

  it('the SDK retries through RequestLimitExceeded (standard mode, 5 attempts) and the describes succeed', async () => {
    const ec2 = await ownEc2({ nonMutating: { capacity: 3, refillPerSecond: 50 }, mutating: { capacity: 50, refillPerSecond: 5 } });
    const client = await clientFor(ec2, { maxAttempts: 5 });
    const storage = new Ec2BlockStorage({ client, clock: systemClock });
    const volumeId = await createVolume(client);
    ec2.resetCounters();
    const results = await Promise.all(Array.from({ length: 6 }, () => storage.describeVolumes([volumeId])));
    expect(results.every((result) => result.get(volumeId)?.exists)).toBe(true);
    expect(ec2.counters().throttled.DescribeVolumes).toBeGreaterThan(0);
  });

  it('injected RequestLimitExceeded twice: the third attempt answers', async () => {
    const ec2 = await ownEc2(false); // only the injected answers throttle
    const client = await clientFor(ec2, { maxAttempts: 5 });
    const volumeId = await createVolume(client);
    ec2.failNext({ action: 'DescribeVolumes', count: 2, code: 'RequestLimitExceeded' });
    const output = await client.send(new DescribeVolumesCommand({ VolumeIds: [volumeId] }));
    expect(output.$metadata.attempts).toBe(3);
  });

  it('a request timeout is transient', async () => {
    const ec2 = await ownEc2(false); // this client makes one attempt: a throttled answer would not be the timeout
    const setup = await clientFor(ec2);
    const instanceId = await runInstance(setup);
    const volumeId = await createVolume(setup);
    const storage = new Ec2BlockStorage({ client: await clientFor(ec2, { requestTimeoutMs: 100 }), clock: systemClock });
    ec2.setLatency('AttachVolume', 500);
    expect((await storage.attach({ volumeId, instanceId, devices: memoryClaims() })).kind).toBe('transient');
  });

  it('a refused connection is transient', async () => {
    const closed = await localEc2();
    const client = await clientFor(closed);
    await closed.stop();
    const storage = new Ec2BlockStorage({ client, clock: systemClock });
    expect(await storage.detach({ volumeId: 'vol-0000000000000000a', instanceId: 'i-0000000000000000a', force: false })).toMatchObject({
      kind: 'transient',
    });
  });
});
