/**
 * The lean describes read what the full ones read, for everything mapping.ts looks at: the same
 * observations and instance views from the same local EC2, only the unused members left unread.
 */
import {
  AttachVolumeCommand,
  DescribeInstancesCommand,
  DescribeVolumesCommand,
  TerminateInstancesCommand,
  type EC2Client,
} from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeanDescribeInstancesCommand, LeanDescribeVolumesCommand } from '../../lambda/adapters/ec2/lean-describe.js';
import { toInstanceView, toObservation } from '../../lambda/adapters/ec2/mapping.js';
import type { LocalEc2 } from '../../sandbox/ec2/server.js';
import { clientFor, createVolume, localEc2, runInstance } from './support.js';

let ec2: LocalEc2;
let client: EC2Client;
let volumeIds: string[];
let instanceIds: string[];
beforeAll(async () => {
  ec2 = await localEc2();
  client = await clientFor(ec2);
  instanceIds = [await runInstance(client), await runInstance(client)];
  const multi = await createVolume(client, { type: 'io2', multiAttach: true, tags: { team: 'storage' } });
  volumeIds = [await createVolume(client), await createVolume(client, { tags: { app: 'db' } }), multi];
  await client.send(new AttachVolumeCommand({ VolumeId: volumeIds[1], InstanceId: instanceIds[0], Device: '/dev/xvdba' }));
  await client.send(new AttachVolumeCommand({ VolumeId: multi, InstanceId: instanceIds[0], Device: '/dev/xvdbb' }));
  await client.send(new AttachVolumeCommand({ VolumeId: multi, InstanceId: instanceIds[1], Device: '/dev/xvdbc' }));
  await client.send(new TerminateInstancesCommand({ InstanceIds: [instanceIds[1] as string] }));
});
afterAll(() => ec2.stop());

describe('lean describes', () => {
  it('DescribeVolumes: the same observations (available, attached, multi-attached), tags and the rest left out', async () => {
    const full = await client.send(new DescribeVolumesCommand({ VolumeIds: volumeIds }));
    const lean = await client.send(new LeanDescribeVolumesCommand({ VolumeIds: volumeIds }));
    expect(lean.Volumes?.map(toObservation)).toEqual(full.Volumes?.map(toObservation));
    expect(lean.Volumes?.map(toObservation).filter((o) => (o?.attachments.length ?? 0) > 0)).toHaveLength(2);
    expect(lean.Volumes?.[1]).not.toHaveProperty('Tags');
    expect(full.Volumes?.[1]).toHaveProperty('Tags');
  });

  it('DescribeInstances: the same states and block device mappings', async () => {
    const full = await client.send(new DescribeInstancesCommand({ InstanceIds: instanceIds }));
    const lean = await client.send(new LeanDescribeInstancesCommand({ InstanceIds: instanceIds }));
    const views = (output: typeof full) => (output.Reservations ?? []).flatMap((r) => r.Instances ?? []).map(toInstanceView);
    expect(views(lean)).toEqual(views(full));
    expect(views(lean).map((v) => v.state)).toEqual(['running', expect.stringMatching(/shutting-down|terminated/)]);
    expect(views(lean)[0]?.mappings.map((m) => m.volumeId)).toEqual(expect.arrayContaining([volumeIds[1], volumeIds[2]]));
  });

  it('fails as the full command does (the SDK parses the error)', async () => {
    const unknown = 'vol-0123456789abcdef0';
    await expect(client.send(new LeanDescribeVolumesCommand({ VolumeIds: [unknown] }))).rejects.toMatchObject({
      name: 'InvalidVolume.NotFound',
    });
  });
});
