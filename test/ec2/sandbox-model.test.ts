/** The local EC2's model through the SDK: lifecycles on a manual clock, EC2's attach rules, throttling. */
import {
  AttachVolumeCommand,
  CreateVolumeCommand,
  DeleteVolumeCommand,
  DescribeInstancesCommand,
  DescribeVolumesCommand,
  DetachVolumeCommand,
  StartInstancesCommand,
  StopInstancesCommand,
  TerminateInstancesCommand,
  type EC2Client,
} from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../sandbox/clock.js';
import type { LocalEc2 } from '../../sandbox/ec2/server.js';
import { clientFor, createVolume, localEc2, runInstance, ZONE } from './support.js';

const clock = new ManualClock();
let ec2: LocalEc2;
let client: EC2Client;
beforeAll(async () => {
  ec2 = await localEc2({
    clock,
    delays: {
      attachMs: 2_000,
      detachMs: 3_000,
      instanceStartMs: 5_000,
      instanceStopMs: 4_000,
      instanceTerminateMs: 6_000,
      terminatedRetentionMs: 3_600_000,
    },
  });
  client = await clientFor(ec2);
});
afterAll(() => ec2.stop());

async function instanceState(instanceId: string): Promise<string | undefined> {
  const output = await client.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
  return output.Reservations?.[0]?.Instances?.[0]?.State?.Name;
}

async function attachments(volumeId: string) {
  const output = await client.send(new DescribeVolumesCommand({ VolumeIds: [volumeId] }));
  return (output.Volumes?.[0]?.Attachments ?? []).map((a) => ({ instanceId: a.InstanceId, state: a.State, device: a.Device }));
}

async function running(): Promise<string> {
  const instanceId = await runInstance(client);
  clock.advance(5_000);
  return instanceId;
}

async function errorCode(promise: Promise<unknown>): Promise<string> {
  const error = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as { name?: string; message?: string } | undefined;
  return error ? `${error.name}: ${error.message}` : 'no error';
}

const attach = (VolumeId: string, InstanceId: string, Device = '/dev/xvdaa') =>
  client.send(new AttachVolumeCommand({ VolumeId, InstanceId, Device }));

describe('lifecycles follow the clock', () => {
  it('pending → running after the start delay', async () => {
    const instanceId = await runInstance(client);
    expect(await instanceState(instanceId)).toBe('pending');
    clock.advance(5_000);
    expect(await instanceState(instanceId)).toBe('running');
  });

  it('attaching → attached, then detaching → gone', async () => {
    const instanceId = await running();
    const volumeId = await createVolume(client);
    expect((await attach(volumeId, instanceId)).State).toBe('attaching');
    clock.advance(1_999);
    expect(await attachments(volumeId)).toEqual([{ instanceId, state: 'attaching', device: '/dev/xvdaa' }]);
    clock.advance(1);
    expect(await attachments(volumeId)).toEqual([{ instanceId, state: 'attached', device: '/dev/xvdaa' }]);
    expect((await client.send(new DetachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId }))).State).toBe('detaching');
    clock.advance(3_000);
    expect(await attachments(volumeId)).toEqual([]);
  });

  it('stop keeps attachments; start brings the instance back', async () => {
    const instanceId = await running();
    const volumeId = await createVolume(client);
    await attach(volumeId, instanceId);
    await client.send(new StopInstancesCommand({ InstanceIds: [instanceId] }));
    expect(await instanceState(instanceId)).toBe('stopping');
    clock.advance(4_000);
    expect(await instanceState(instanceId)).toBe('stopped');
    expect(await attachments(volumeId)).toEqual([{ instanceId, state: 'attached', device: '/dev/xvdaa' }]);
    await client.send(new StartInstancesCommand({ InstanceIds: [instanceId] }));
    clock.advance(5_000);
    expect(await instanceState(instanceId)).toBe('running');
  });

  it('terminate: shutting-down keeps volumes; terminated frees them and deletes the root; later the instance is unknown', async () => {
    const instanceId = await running();
    const volumeId = await createVolume(client);
    await attach(volumeId, instanceId);
    const rootVolumeId = ec2.world.instances.get(instanceId)?.rootVolumeId ?? '';
    await client.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] }));
    expect(await instanceState(instanceId)).toBe('shutting-down');
    expect(await attachments(volumeId)).toHaveLength(1);
    clock.advance(6_000);
    expect(await instanceState(instanceId)).toBe('terminated');
    expect(await attachments(volumeId)).toEqual([]);
    expect(await errorCode(client.send(new DescribeVolumesCommand({ VolumeIds: [rootVolumeId] })))).toMatch(/^InvalidVolume\.NotFound/);
    clock.advance(3_600_000);
    expect(await errorCode(instanceState(instanceId))).toBe(`InvalidInstanceID.NotFound: The instance ID '${instanceId}' does not exist`);
  });

  it('stopping a terminated instance is IncorrectInstanceState', async () => {
    const instanceId = await running();
    await client.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] }));
    clock.advance(6_000);
    expect(await errorCode(client.send(new StopInstancesCommand({ InstanceIds: [instanceId] })))).toMatch(/^IncorrectInstanceState/);
  });
});

describe('AttachVolume rules', () => {
  it.each([
    [
      'another availability zone',
      async (instanceId: string) => attach(await createVolume(client, { zone: 'us-east-1b' }), instanceId),
      /^InvalidVolume\.ZoneMismatch: The volume 'vol-[0-9a-f]+' is not in the same availability zone as instance 'i-[0-9a-f]+'$/,
    ],
    [
      'a volume attached elsewhere',
      async (instanceId: string) => {
        const volumeId = await createVolume(client);
        await attach(volumeId, await running());
        return attach(volumeId, instanceId, '/dev/xvdab');
      },
      /^VolumeInUse: vol-[0-9a-f]+ is already attached to an instance$/,
    ],
    [
      'a volume already attached to this instance',
      async (instanceId: string) => {
        const volumeId = await createVolume(client);
        await attach(volumeId, instanceId, '/dev/xvdac');
        return attach(volumeId, instanceId, '/dev/xvdad');
      },
      /^VolumeInUse: /,
    ],
    [
      'a device name in use',
      async (instanceId: string) => {
        await attach(await createVolume(client), instanceId, '/dev/xvdba');
        return attach(await createVolume(client), instanceId, '/dev/xvdba');
      },
      /^InvalidParameterValue: Invalid value '\/dev\/xvdba' for unixDevice\. Attachment point \/dev\/xvdba is already in use$/,
    ],
    ['the root device name', async (instanceId: string) => attach(await createVolume(client), instanceId, '/dev/xvda'), /already in use$/],
    [
      'a malformed device name',
      async (instanceId: string) => attach(await createVolume(client), instanceId, 'sdf'),
      /^InvalidParameterValue: Value \(sdf\)/,
    ],
    ['an unknown volume', (instanceId: string) => attach('vol-0000000000000000f', instanceId), /^InvalidVolume\.NotFound/],
  ])('refuses %s', async (_name, act, expected) => {
    expect(await errorCode(act(await running()))).toMatch(expected);
  });

  it('refuses an instance that is not running or stopped', async () => {
    const instanceId = await runInstance(client); // pending
    expect(await errorCode(attach(await createVolume(client), instanceId))).toMatch(/^IncorrectInstanceState/);
  });

  it('Nitro: 28 slots shared by the root volume, one network interface and 26 data volumes', async () => {
    const instanceId = await running();
    for (let i = 0; i < 26; i += 1) await attach(await createVolume(client), instanceId, `/dev/xvda${String.fromCharCode(97 + i)}`);
    expect(await errorCode(attach(await createVolume(client), instanceId, '/dev/xvdba'))).toBe(
      'AttachmentLimitExceeded: The maximum number of volumes has been reached.',
    );
  });

  it('io2 Multi-Attach: up to 16 Nitro instances, not a 17th', async () => {
    const volumeId = await createVolume(client, { type: 'io2', multiAttach: true });
    for (let i = 0; i < 16; i += 1) await attach(volumeId, await running());
    expect(await attachments(volumeId)).toHaveLength(16);
    expect(await errorCode(attach(volumeId, await running()))).toMatch(/^VolumeInUse/);
  });

  it('io2 Multi-Attach refuses a Xen instance', async () => {
    const volumeId = await createVolume(client, { type: 'io2', multiAttach: true });
    await attach(volumeId, await running());
    const xen = await runInstance(client, { type: 'm4.large' });
    clock.advance(5_000);
    expect(await errorCode(attach(volumeId, xen))).toMatch(/^UnsupportedOperation/);
  });

  it('Multi-Attach only on io1/io2', async () => {
    const create = client.send(new CreateVolumeCommand({ AvailabilityZone: ZONE, Size: 1, VolumeType: 'gp3', MultiAttachEnabled: true }));
    expect(await errorCode(create)).toMatch(/^InvalidParameterCombination/);
  });
});

describe('DetachVolume and DeleteVolume rules', () => {
  it('IncorrectState for an available volume (EC2 wording)', async () => {
    const volumeId = await createVolume(client);
    expect(await errorCode(client.send(new DetachVolumeCommand({ VolumeId: volumeId })))).toBe(
      `IncorrectState: Volume '${volumeId}'is in the 'available' state.`,
    );
  });

  it('InvalidAttachment.NotFound for an instance it is not attached to', async () => {
    const volumeId = await createVolume(client);
    await attach(volumeId, await running());
    const other = await running();
    expect(await errorCode(client.send(new DetachVolumeCommand({ VolumeId: volumeId, InstanceId: other })))).toMatch(
      /^InvalidAttachment\.NotFound/,
    );
  });

  it('DeleteVolume of an attached volume is VolumeInUse', async () => {
    const volumeId = await createVolume(client);
    const instanceId = await running();
    await attach(volumeId, instanceId);
    expect(await errorCode(client.send(new DeleteVolumeCommand({ VolumeId: volumeId })))).toBe(
      `VolumeInUse: Volume ${volumeId} is currently attached to ${instanceId}`,
    );
  });

  it('CreateVolume with the same ClientToken returns the same volume', async () => {
    const input = { AvailabilityZone: ZONE, Size: 1, ClientToken: 'token-1' };
    const first = await client.send(new CreateVolumeCommand(input));
    const second = await client.send(new CreateVolumeCommand(input));
    expect(second.VolumeId).toBe(first.VolumeId);
  });
});

describe('throttling (mutating 50, +5/s; non-mutating 100, +20/s)', () => {
  it('an empty bucket answers RequestLimitExceeded until the clock refills it', async () => {
    ec2.configureThrottle({});
    try {
      const statuses: string[] = [];
      for (let i = 0; i < 52; i += 1)
        statuses.push(await errorCode(client.send(new DeleteVolumeCommand({ VolumeId: 'vol-0000000000000000e' }))));
      expect(statuses.filter((status) => status.startsWith('RequestLimitExceeded'))).toHaveLength(2);
      expect(await errorCode(client.send(new DescribeVolumesCommand({ MaxResults: 5 })))).toBe('no error'); // its own bucket
      clock.advance(1_000);
      for (let i = 0; i < 5; i += 1)
        expect(await errorCode(client.send(new DeleteVolumeCommand({ VolumeId: 'vol-0000000000000000e' })))).toMatch(/^InvalidVolume/);
      expect(await errorCode(client.send(new DeleteVolumeCommand({ VolumeId: 'vol-0000000000000000e' })))).toMatch(/^RequestLimitExceeded/);
      expect(ec2.counters().throttled.DeleteVolume).toBe(3);
    } finally {
      ec2.configureThrottle(false);
    }
  });
});

describe('DescribeInstances of several instances', () => {
  it("maps each instance's own volumes, root first, in one answer (the attachments indexed once per answer)", async () => {
    const [a, b] = [await running(), await running()];
    const [v1, v2, v3] = [await createVolume(client), await createVolume(client), await createVolume(client)];
    await attach(v1, a, '/dev/xvdba');
    await attach(v2, b, '/dev/xvdbb');
    await attach(v3, a, '/dev/xvdbc');
    clock.advance(2_000);
    const output = await client.send(
      new DescribeInstancesCommand({ InstanceIds: [a, b], Filters: [{ Name: 'block-device-mapping.volume-id', Values: [v2, v3] }] }),
    );
    const mapped = (output.Reservations ?? [])
      .flatMap((r) => r.Instances ?? [])
      .map((i) => ({
        id: i.InstanceId,
        devices: (i.BlockDeviceMappings ?? []).map((m) => [m.DeviceName, m.Ebs?.VolumeId === undefined ? '' : m.Ebs.VolumeId]),
      }));
    const rootOf = (id: string) => mapped.find((m) => m.id === id)?.devices[0]?.[1] ?? '';
    expect(mapped.sort((x, y) => String(x.id).localeCompare(String(y.id)))).toEqual(
      [
        {
          id: a,
          devices: [
            ['/dev/xvda', rootOf(a)],
            ['/dev/xvdba', v1],
            ['/dev/xvdbc', v3],
          ],
        },
        {
          id: b,
          devices: [
            ['/dev/xvda', rootOf(b)],
            ['/dev/xvdbb', v2],
          ],
        },
      ].sort((x, y) => x.id.localeCompare(y.id)),
    );
    expect([rootOf(a), rootOf(b)].every((id) => id.startsWith('vol-'))).toBe(true);
  });
});
