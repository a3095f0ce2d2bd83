/**
 * Where the local EC2 must be as strict as EC2 itself: a throttle bucket per API action,
 * DryRun answering without acting, and RunInstances refusing images that are not registered.
 */
import {
  AttachVolumeCommand,
  DescribeImagesCommand,
  DescribeVolumesCommand,
  DetachVolumeCommand,
  RunInstancesCommand,
  type EC2Client,
} from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../sandbox/clock.js';
import type { LocalEc2 } from '../../sandbox/ec2/server.js';
import { SANDBOX_IMAGE_ID } from '../../sandbox/ec2/state/images.js';
import { clientFor, createVolume, localEc2, runInstance, ZONE } from './support.js';

const clock = new ManualClock();
let ec2: LocalEc2;
let client: EC2Client;
beforeAll(async () => {
  ec2 = await localEc2({ clock });
  client = await clientFor(ec2);
});
afterAll(() => ec2.stop());

async function outcome(promise: Promise<unknown>): Promise<string> {
  const error = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return error ? `${error.name} ${error.$metadata?.httpStatusCode}: ${error.message}` : 'ok';
}

async function volumeState(volumeId: string): Promise<string | undefined> {
  const output = await client.send(new DescribeVolumesCommand({ VolumeIds: [volumeId] }));
  return output.Volumes?.[0]?.State;
}

describe('throttling: one bucket per API action (EC2 "request rate limiting" is per API)', () => {
  it('AttachVolume draining its 50 tokens leaves DetachVolume its own 50', async () => {
    const instanceId = await runInstance(client);
    ec2.configureThrottle({});
    try {
      const attaches: string[] = [];
      for (let i = 0; i < 51; i += 1)
        attaches.push(
          await outcome(
            client.send(new AttachVolumeCommand({ VolumeId: 'vol-0000000000000000e', InstanceId: instanceId, Device: '/dev/xvdf' })),
          ),
        );
      expect(attaches.filter((a) => a.startsWith('RequestLimitExceeded'))).toHaveLength(1);
      const detach = await outcome(client.send(new DetachVolumeCommand({ VolumeId: 'vol-0000000000000000e' })));
      expect(detach).toMatch(/^InvalidVolume.NotFound/);
      clock.advance(200); // one AttachVolume token back (+5/s)
      expect(
        await outcome(
          client.send(new AttachVolumeCommand({ VolumeId: 'vol-0000000000000000e', InstanceId: instanceId, Device: '/dev/xvdf' })),
        ),
      ).toMatch(/^InvalidVolume.NotFound/);
      expect(ec2.counters().throttled).toEqual({ AttachVolume: 1 });
    } finally {
      ec2.configureThrottle(false);
    }
  });
});

describe('DryRun=true: DryRunOperation (HTTP 412) and nothing changes', () => {
  it.each([
    [
      'AttachVolume of an available volume',
      false,
      (VolumeId: string, InstanceId: string) =>
        client.send(new AttachVolumeCommand({ VolumeId, InstanceId, Device: '/dev/xvdh', DryRun: true })),
    ],
    ['DetachVolume of an attached volume', true, (VolumeId: string) => client.send(new DetachVolumeCommand({ VolumeId, DryRun: true }))],
  ] as const)('%s', async (_case, attachFirst, send) => {
    const instanceId = await runInstance(client);
    const volumeId = await createVolume(client);
    if (attachFirst) await client.send(new AttachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId, Device: '/dev/xvdg' }));
    const before = await volumeState(volumeId);
    expect(await outcome(send(volumeId, instanceId))).toBe('DryRunOperation 412: Request would have succeeded, but DryRun flag is set.');
    expect(await volumeState(volumeId)).toBe(before);
    expect(before).toBe(attachFirst ? 'in-use' : 'available');
  });

  it('RunInstances with DryRun launches nothing', async () => {
    const before = ec2.world.instances.size;
    const dryRun = client.send(
      new RunInstancesCommand({ ImageId: SANDBOX_IMAGE_ID, MinCount: 1, MaxCount: 1, DryRun: true, Placement: { AvailabilityZone: ZONE } }),
    );
    expect(await outcome(dryRun)).toMatch(/^DryRunOperation 412/);
    expect(ec2.world.instances.size).toBe(before);
  });
});

describe('images: RunInstances takes registered AMIs only', () => {
  const run = (ImageId: string) =>
    client.send(new RunInstancesCommand({ ImageId, MinCount: 1, MaxCount: 1, Placement: { AvailabilityZone: ZONE } }));

  it.each([
    [
      'an unknown, well-formed id',
      'ami-0123456789abcdef0',
      `InvalidAMIID.NotFound 400: The image id '[ami-0123456789abcdef0]' does not exist`,
    ],
    [
      'a malformed id',
      'ami-0eks0node0amazonlinux',
      'InvalidAMIID.Malformed 400: Invalid id: "ami-0eks0node0amazonlinux" (expecting "ami-...")',
    ],
    ['the registered image', SANDBOX_IMAGE_ID, 'ok'],
  ])('%s', async (_case, imageId, expected) => {
    expect(await outcome(run(imageId))).toBe(expected);
  });

  it('DescribeImages lists the registered images and refuses unknown ids', async () => {
    const all = await client.send(new DescribeImagesCommand({}));
    expect(all.Images?.map((image) => [image.ImageId, image.State, image.RootDeviceName])).toContainEqual([
      SANDBOX_IMAGE_ID,
      'available',
      '/dev/xvda',
    ]);
    const one = await client.send(new DescribeImagesCommand({ ImageIds: [SANDBOX_IMAGE_ID] }));
    expect(one.Images).toHaveLength(1);
    expect(await outcome(client.send(new DescribeImagesCommand({ ImageIds: ['ami-0123456789abcdef0'] })))).toMatch(
      /^InvalidAMIID.NotFound/,
    );
  });
});
