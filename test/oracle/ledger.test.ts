/**
 * The ledger hands the invariant checks the EC2 calls that can change an attachment: a dry run
 * (DryRun=true, the attacher's shadow preflight) changes nothing, so it is no attach or detach there.
 */
import { AttachVolumeCommand, DetachVolumeCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LocalEc2 } from '../../sandbox/ec2/server.js';
import { ApiLedger } from '../../sandbox/oracle/ledger.js';
import { clientFor, createVolume, localEc2, runInstance } from '../ec2/support.js';

let ec2: LocalEc2;
let client: EC2Client;
beforeAll(async () => {
  ec2 = await localEc2();
  client = await clientFor(ec2);
});
afterAll(async () => {
  client.destroy();
  await ec2.stop();
});

const noKube = { counters: () => ({}), requests: () => [], resetRequests: () => undefined };

it('leaves dry-run AttachVolume and DetachVolume out of the mutations, and the drain stays complete', async () => {
  const [instanceId, volumeId] = [await runInstance(client), await createVolume(client)];
  await client.send(new AttachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId, Device: '/dev/xvdf' }));
  const ledger = new ApiLedger(ec2, noKube);
  ledger.drain();

  const dryRun = (call: Promise<unknown>) =>
    call.then(
      () => 'done',
      (error: Error) => error.name,
    );
  expect(
    await dryRun(client.send(new DetachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId, Device: '/dev/xvdf', DryRun: true }))),
  ).toBe('DryRunOperation');
  expect(
    await dryRun(client.send(new AttachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId, Device: '/dev/xvdf', DryRun: true }))),
  ).toBe('DryRunOperation');
  await client.send(new DetachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId }));

  const drained = ledger.drain();
  expect(drained.mutations).toEqual([{ action: 'DetachVolume', volumeId, instanceId }]);
  expect(drained.detaches).toEqual([{ volumeId, instanceId }]);
  expect(drained.complete).toBe(true);
  expect(drained.ec2).toMatchObject({ AttachVolume: 1, DetachVolume: 2 });
});
