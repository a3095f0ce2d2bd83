/**
 * A lost answer: the request reached EC2 and was carried out, but the connection dropped before
 * the response came back, as when a Lambda's network blips or EC2's front end drops it. The caller
 * cannot tell whether anything happened; the fault makes that case deterministic (no real-time
 * timeout to race), for the adapter and the fault suite.
 */
import { AttachVolumeCommand, DescribeVolumesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Ec2BlockStorage } from '../../lambda/adapters/ec2/block-storage.js';
import { systemClock } from '../../lambda/clock.js';
import type { LocalEc2 } from '../../sandbox/ec2/server.js';
import { memoryClaims } from '../support/device-claims.js';
import { clientFor, createVolume, localEc2, runInstance } from './support.js';

let ec2: LocalEc2;
let client: EC2Client;
beforeEach(async () => {
  ec2 = await localEc2({ delays: { attachMs: 60_000 } });
  client = await clientFor(ec2);
});
afterEach(() => ec2.stop());

const attachmentsOf = async (volumeId: string) =>
  (await client.send(new DescribeVolumesCommand({ VolumeIds: [volumeId] }))).Volumes?.[0]?.Attachments ?? [];

describe('local EC2: an answer lost after the request was carried out', () => {
  it('the SDK sees a network error, yet the volume is attaching', async () => {
    const instanceId = await runInstance(client);
    const volumeId = await createVolume(client);
    ec2.loseAnswers('AttachVolume', 1);

    const sent = client.send(new AttachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId, Device: '/dev/xvdaa' }));

    await expect(sent).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(await attachmentsOf(volumeId)).toMatchObject([{ InstanceId: instanceId, State: 'attaching' }]);
  });

  it('loses only as many answers as asked, then answers again', async () => {
    const volumeId = await createVolume(client);
    ec2.loseAnswers('DescribeVolumes', 2);

    await expect(attachmentsOf(volumeId)).rejects.toThrow();
    await expect(attachmentsOf(volumeId)).rejects.toThrow();
    expect(await attachmentsOf(volumeId)).toEqual([]);
  });

  it('ends with the other faults', async () => {
    const volumeId = await createVolume(client);
    ec2.loseAnswers('*', 5);
    ec2.clearFaults();
    expect(await attachmentsOf(volumeId)).toEqual([]);
  });

  it('the adapter reads it as transient: EC2 may have attached, so the attachment stays uncertain', async () => {
    const storage = new Ec2BlockStorage({ client, clock: systemClock });
    const instanceId = await runInstance(client);
    const volumeId = await createVolume(client);
    ec2.loseAnswers('AttachVolume', 1);

    expect(await storage.attach({ volumeId, instanceId, devices: memoryClaims() })).toMatchObject({ kind: 'transient' });
    expect(await attachmentsOf(volumeId)).toMatchObject([{ InstanceId: instanceId, State: 'attaching' }]);
  });
});
