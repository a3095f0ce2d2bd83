/**
 * The EC2 adapter against the local EC2 through the real SDK client: every attach and detach
 * outcome the port promises, device names, and describes that survive deleted volumes.
 */
import { TerminateInstancesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ec2BlockStorage } from '../../lambda/adapters/ec2/block-storage.js';
import type { LocalEc2 } from '../../sandbox/ec2/server.js';
import { clientFor, createVolume, localEc2, runInstance, seedVolumes } from './support.js';
import { memoryClaims } from '../support/device-claims.js';
import { systemClock } from '../../lambda/clock.js';

let ec2: LocalEc2;
let client: EC2Client;
let storage: Ec2BlockStorage;

beforeAll(async () => {
  ec2 = await localEc2();
  client = await clientFor(ec2);
  storage = new Ec2BlockStorage({ client, clock: systemClock });
});
afterAll(() => ec2.stop());

async function attachedPair(): Promise<{ volumeId: string; instanceId: string; device: string }> {
  const instanceId = await runInstance(client);
  const volumeId = await createVolume(client);
  const outcome = await storage.attach({ volumeId, instanceId, devices: memoryClaims() });
  if (outcome.kind !== 'started') throw new Error(`attach: ${JSON.stringify(outcome)}`);
  return { volumeId, instanceId, device: outcome.device };
}

const UNKNOWN_VOLUME = 'vol-0000000000000dead';
const UNKNOWN_INSTANCE = 'i-0000000000000dead';

describe('attach outcomes', () => {
  it("started: the first EBS CSI device name, with the answer's AttachTime (what tells the new attachment from a lagging read of an old one)", async () => {
    const instanceId = await runInstance(client);
    const volumeId = await createVolume(client);
    expect(await storage.attach({ volumeId, instanceId, devices: memoryClaims() })).toEqual({
      kind: 'started',
      device: '/dev/xvdaa',
      attachTime: expect.any(Number) as number,
    });
  });

  it('already-attached: found in the instance mappings, so no AttachVolume is sent', async () => {
    const { volumeId, instanceId, device } = await attachedPair();
    ec2.resetCounters();
    expect(await storage.attach({ volumeId, instanceId, devices: memoryClaims() })).toEqual({ kind: 'already-attached', device });
    expect(ec2.counters().calls.AttachVolume).toBeUndefined();
  });

  it('already-attached: EC2 answers VolumeInUse for this very instance (a racing attach); DescribeVolumes tells', async () => {
    const instanceId = await runInstance(client);
    const volumeId = await createVolume(client);
    ec2.setLatency('DescribeInstances', 200); // both attaches read the instance before either attaches
    const claims = memoryClaims();
    const outcomes = await Promise.all([
      storage.attach({ volumeId, instanceId, devices: claims }),
      storage.attach({ volumeId, instanceId, devices: claims }),
    ]);
    ec2.setLatency('DescribeInstances', 0);
    const kinds = outcomes.map((outcome) => outcome.kind).sort();
    expect(kinds).toEqual(['already-attached', 'started']);
    const devices = new Set(outcomes.map((outcome) => ('device' in outcome ? outcome.device : '')));
    expect(devices.size).toBe(1);
  });

  it('attached-elsewhere: VolumeInUse names the instance holding it', async () => {
    const { volumeId, instanceId: holder } = await attachedPair();
    const other = await runInstance(client);
    expect(await storage.attach({ volumeId, instanceId: other, devices: memoryClaims() })).toMatchObject({
      kind: 'attached-elsewhere',
      instanceIds: [holder],
    });
  });

  it.each([
    [
      'volume-gone: the volume does not exist',
      async () => ({ volumeId: UNKNOWN_VOLUME, instanceId: await runInstance(client) }),
      'volume-gone',
    ],
    [
      'instance-gone: the instance does not exist',
      async () => ({ volumeId: await createVolume(client), instanceId: UNKNOWN_INSTANCE }),
      'instance-gone',
    ],
    [
      'instance-gone: the instance is terminated',
      async () => {
        const instanceId = await runInstance(client);
        await client.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] }));
        return { volumeId: await createVolume(client), instanceId };
      },
      'instance-gone',
    ],
    [
      'failed: the volume is in another availability zone',
      async () => ({ volumeId: await createVolume(client, { zone: 'us-east-1b' }), instanceId: await runInstance(client) }),
      'failed',
    ],
  ] as const)('%s', async (_name, setup, kind) => {
    expect((await storage.attach({ ...(await setup()), devices: memoryClaims() })).kind).toBe(kind);
  });

  it('failed carries the EC2 code (InvalidVolume.ZoneMismatch)', async () => {
    const outcome = await storage.attach({
      volumeId: await createVolume(client, { zone: 'us-east-1b' }),
      instanceId: await runInstance(client),
      devices: memoryClaims(),
    });
    expect(outcome).toMatchObject({ kind: 'failed', code: 'InvalidVolume.ZoneMismatch' });
  });

  it('limit-reached: AttachmentLimitExceeded once the instance slots are used', async () => {
    const instanceId = await runInstance(client);
    ec2.setAttachmentLimit(instanceId, 3); // root volume + network interface + one data volume
    const claims = memoryClaims();
    expect((await storage.attach({ volumeId: await createVolume(client), instanceId, devices: claims })).kind).toBe('started');
    expect((await storage.attach({ volumeId: await createVolume(client), instanceId, devices: claims })).kind).toBe('limit-reached');
  });

  it('device-in-use: a name EC2 refuses is reported to the claims (kept off the list), and the next attach gets another', async () => {
    const instanceId = await runInstance(client);
    const claims = memoryClaims();
    ec2.failNext({
      action: 'AttachVolume',
      count: 1,
      code: 'InvalidParameterValue',
      message: "Invalid value '/dev/xvdaa' for unixDevice. Attachment point /dev/xvdaa is already in use",
    });
    expect(await storage.attach({ volumeId: await createVolume(client), instanceId, devices: claims })).toMatchObject({
      kind: 'device-in-use',
      device: '/dev/xvdaa',
    });
    expect(claims.refusedNames).toEqual(['/dev/xvdaa']);
    expect(await storage.attach({ volumeId: await createVolume(client), instanceId, devices: claims })).toMatchObject({
      kind: 'started',
      device: '/dev/xvdab',
    });
  });

  it.each([
    ['throttled: RequestLimitExceeded outlasting the SDK retries', 'RequestLimitExceeded', 'throttled'],
    ['transient: InternalError (500)', 'InternalError', 'transient'],
    ['transient: Unavailable (503)', 'Unavailable', 'transient'],
    ['unauthorized: UnauthorizedOperation', 'UnauthorizedOperation', 'unauthorized'],
    ['unauthorized: CustomerKeyHasBeenRevoked', 'CustomerKeyHasBeenRevoked', 'unauthorized'],
    ['failed: InvalidParameterValue', 'InvalidParameterValue', 'failed'],
  ])('%s', async (_name, code, kind) => {
    ec2.failNext({ action: 'AttachVolume', count: 1, code });
    expect(
      (await storage.attach({ volumeId: await createVolume(client), instanceId: await runInstance(client), devices: memoryClaims() })).kind,
    ).toBe(kind);
  });

  it('names held elsewhere are skipped: the attach uses the first name the claims hand out', async () => {
    const instanceId = await runInstance(client);
    const claims = memoryClaims(new Set(['/dev/xvdaa', '/dev/xvdab']));
    const outcome = await storage.attach({ volumeId: await createVolume(client), instanceId, devices: claims });
    expect(outcome).toMatchObject({ kind: 'started', device: '/dev/xvdac' });
  });

  it('a definite refusal frees the claimed name; a timed-out call keeps it (the attach may still land)', async () => {
    const instanceId = await runInstance(client);
    const claims = memoryClaims();
    ec2.failNext({ action: 'AttachVolume', count: 1, code: 'UnauthorizedOperation' });
    await storage.attach({ volumeId: await createVolume(client), instanceId, devices: claims });
    expect(claims.unusedNames).toEqual(['/dev/xvdaa']);
    ec2.failNext({ action: 'AttachVolume', count: 1, code: 'InternalError' });
    await storage.attach({ volumeId: await createVolume(client), instanceId, devices: claims });
    expect(claims.unusedNames).toEqual(['/dev/xvdaa']);
  });

  it('20 concurrent attaches to one instance get 20 distinct device names', async () => {
    const instanceId = await runInstance(client);
    const volumeIds = await Promise.all(Array.from({ length: 20 }, () => createVolume(client)));
    const claims = memoryClaims();
    const outcomes = await Promise.all(volumeIds.map((volumeId) => storage.attach({ volumeId, instanceId, devices: claims })));
    expect(outcomes.every((outcome) => outcome.kind === 'started')).toBe(true);
    const devices = outcomes.map((outcome) => ('device' in outcome ? outcome.device : ''));
    expect(new Set(devices).size).toBe(20);
    const inEc2 = await storage.describeInstanceVolumes(instanceId);
    expect(new Set(inEc2.flatMap((volume) => volume.attachments.map((a) => a.device))).size).toBe(21); // + root
  });
});

describe('detach outcomes', () => {
  it('started, without Force unless asked', async () => {
    const { volumeId, instanceId } = await attachedPair();
    ec2.resetCounters();
    expect(await storage.detach({ volumeId, instanceId, force: false })).toEqual({ kind: 'started' });
    expect(ec2.requests('DetachVolume')[0]?.params.Force).toBeUndefined();
  });

  it('Force=true when the caller asks', async () => {
    const { volumeId, instanceId } = await attachedPair();
    ec2.resetCounters();
    expect(await storage.detach({ volumeId, instanceId, force: true })).toEqual({ kind: 'started' });
    expect(ec2.requests('DetachVolume')[0]?.params.Force).toBe('true');
  });

  it.each([
    [
      'IncorrectState: the volume is available',
      async () => ({ volumeId: await createVolume(client), instanceId: await runInstance(client) }),
    ],
    [
      'InvalidAttachment.NotFound: attached to another instance',
      async () => ({ volumeId: (await attachedPair()).volumeId, instanceId: await runInstance(client) }),
    ],
    ['InvalidVolume.NotFound: the volume was deleted', async () => ({ volumeId: UNKNOWN_VOLUME, instanceId: await runInstance(client) })],
  ])('already-detached: %s', async (_name, setup) => {
    expect(await storage.detach({ ...(await setup()), force: false })).toEqual({ kind: 'already-detached' });
  });

  it.each([
    ['RequestLimitExceeded', 'throttled'],
    ['InternalError', 'transient'],
    ['OperationNotPermitted', 'failed'],
  ])('%s → %s', async (code, kind) => {
    const { volumeId, instanceId } = await attachedPair();
    ec2.failNext({ action: 'DetachVolume', count: 1, code });
    expect((await storage.detach({ volumeId, instanceId, force: false })).kind).toBe(kind);
  });
});

describe('describe', () => {
  it('1,200 volumes take 3 DescribeVolumes calls (500 ids each)', async () => {
    const volumeIds = seedVolumes(ec2, 1_200);
    ec2.resetCounters();
    const observed = await storage.describeVolumes(volumeIds);
    expect(ec2.counters().calls.DescribeVolumes).toBe(3);
    expect([...observed.values()].filter((volume) => volume.exists)).toHaveLength(1_200);
    for (const id of volumeIds) ec2.world.volumes.delete(id);
  });

  it('a deleted volume in the batch comes back exists: false (confirmed through the filter) and the rest are described', async () => {
    const { volumeId, instanceId, device } = await attachedPair();
    const idle = await createVolume(client);
    ec2.resetCounters();
    const observed = await storage.describeVolumes([volumeId, UNKNOWN_VOLUME, idle]);
    expect(observed.get(UNKNOWN_VOLUME)).toEqual({ volumeId: UNKNOWN_VOLUME, exists: false, attachments: [] });
    expect(observed.get(volumeId)).toMatchObject({ exists: true, attachments: [{ instanceId, device, state: 'attached' }] });
    expect(observed.get(idle)).toMatchObject({ exists: true, attachments: [] });
    expect(ec2.counters().calls.DescribeVolumes).toBe(3); // by ids, again without the named id, then the named id by filter
    expect(ec2.requests('DescribeVolumes').at(-1)?.params).toMatchObject({
      'Filter.1.Name': 'volume-id',
      'Filter.1.Value.1': UNKNOWN_VOLUME,
    });
  });

  it('a NotFound naming none of the ids falls back to the volume-id filter', async () => {
    const volumeId = await createVolume(client);
    ec2.failNext({ action: 'DescribeVolumes', count: 1, code: 'InvalidVolume.NotFound', message: 'The volume does not exist.' });
    const observed = await storage.describeVolumes([volumeId, UNKNOWN_VOLUME]);
    expect(observed.get(volumeId)?.exists).toBe(true);
    expect(observed.get(UNKNOWN_VOLUME)?.exists).toBe(false);
    const filtered = ec2.requests('DescribeVolumes').at(-1)?.params;
    expect(filtered).toMatchObject({ 'Filter.1.Name': 'volume-id' });
  });

  it('describeInstances: states, and missing for ids EC2 does not know', async () => {
    const running = await runInstance(client);
    const terminated = await runInstance(client);
    await client.send(new TerminateInstancesCommand({ InstanceIds: [terminated] }));
    const states = await storage.describeInstances([running, terminated, UNKNOWN_INSTANCE]);
    expect(Object.fromEntries(states)).toEqual({ [running]: 'running', [terminated]: 'terminated', [UNKNOWN_INSTANCE]: 'missing' });
  });

  it('terminating an instance frees its data volumes and deletes its root volume', async () => {
    const { volumeId, instanceId } = await attachedPair();
    const rootVolumeId = ec2.world.instances.get(instanceId)?.rootVolumeId ?? '';
    await client.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] }));
    const observed = await storage.describeVolumes([volumeId, rootVolumeId]);
    expect(observed.get(volumeId)).toMatchObject({ exists: true, attachments: [] });
    expect(observed.get(rootVolumeId)?.exists).toBe(false);
  });
});
