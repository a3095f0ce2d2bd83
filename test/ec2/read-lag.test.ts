/**
 * The local EC2's read lag: DescribeVolumes is eventually consistent, so for a while after
 * AttachVolume/DetachVolume it may still show a volume as it was before. The fault replays that
 * for one volume or all, on the sandbox clock.
 */
import { AttachVolumeCommand, DescribeVolumesCommand, DetachVolumeCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../sandbox/clock.js';
import type { LocalEc2 } from '../../sandbox/ec2/server.js';
import { clientFor, createVolume, localEc2, runInstance } from './support.js';

let ec2: LocalEc2;
let client: EC2Client;
let clock: ManualClock;
beforeEach(async () => {
  clock = new ManualClock();
  ec2 = await localEc2({ clock });
  client = await clientFor(ec2);
});
afterEach(() => ec2.stop());

const attachmentsOf = async (volumeId: string) =>
  (await client.send(new DescribeVolumesCommand({ VolumeIds: [volumeId] }))).Volumes?.[0]?.Attachments?.map((a) => a.State) ?? [];

async function attached(): Promise<{ volumeId: string; instanceId: string }> {
  const instanceId = await runInstance(client);
  const volumeId = await createVolume(client);
  return { volumeId, instanceId };
}

describe('local EC2: DescribeVolumes lagging behind a mutation', () => {
  it('shows no attachment for the lag after AttachVolume, then the attachment', async () => {
    const { volumeId, instanceId } = await attached();
    ec2.lagReads(5_000);
    await client.send(new AttachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId, Device: '/dev/xvdaa' }));

    expect(await attachmentsOf(volumeId)).toEqual([]);
    clock.advance(4_999);
    expect(await attachmentsOf(volumeId)).toEqual([]);
    clock.advance(1);
    expect(await attachmentsOf(volumeId)).toEqual(['attached']);
  });

  it('shows the volume still attached for the lag after DetachVolume', async () => {
    const { volumeId, instanceId } = await attached();
    await client.send(new AttachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId, Device: '/dev/xvdaa' }));
    ec2.lagReads(5_000, volumeId);
    await client.send(new DetachVolumeCommand({ VolumeId: volumeId }));

    expect(await attachmentsOf(volumeId)).toEqual(['attached']);
    clock.advance(5_000);
    expect(await attachmentsOf(volumeId)).toEqual([]);
  });

  it('lags only the volume named, and a failed mutation leaves nothing stale', async () => {
    const { volumeId, instanceId } = await attached();
    const other = await createVolume(client);
    ec2.lagReads(5_000, other);
    await client.send(new AttachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId, Device: '/dev/xvdaa' }));
    ec2.failNext({ action: 'AttachVolume', count: 1, code: 'InternalError' });
    await expect(client.send(new AttachVolumeCommand({ VolumeId: other, InstanceId: instanceId, Device: '/dev/xvdab' }))).rejects.toThrow();

    expect(await attachmentsOf(volumeId)).toEqual(['attached']);
    await client.send(new AttachVolumeCommand({ VolumeId: other, InstanceId: instanceId, Device: '/dev/xvdab' }));
    expect(await attachmentsOf(other)).toEqual([]);
    ec2.clearFaults();
    expect(await attachmentsOf(other)).toEqual(['attached']);
  });
});
