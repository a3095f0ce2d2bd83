/** The in-memory EC2 of the executor tests lets go of a volume as EC2 does. */
import { describe, expect, it } from 'vitest';
import type { VolumeObservation } from '../../lambda/core/types.js';
import { FakeBlockStorage } from './fake-ports.js';

const V = 'vol-0123456789abcdef0';

function onTwoInstances(): VolumeObservation {
  return {
    volumeId: V,
    exists: true,
    multiAttachEnabled: true,
    attachments: [
      { instanceId: 'i-a', state: 'attached', device: '/dev/xvdaa' },
      { instanceId: 'i-b', state: 'attached', device: '/dev/xvdab' },
    ],
  };
}

const shown = async (ec2: FakeBlockStorage) => (await ec2.describeVolumes([V])).get(V)?.attachments.map((a) => a.instanceId);

describe('FakeBlockStorage', () => {
  it('forgets the attachment a successful DetachVolume names, and only that one', async () => {
    const ec2 = new FakeBlockStorage();
    ec2.volumes.set(V, onTwoInstances());
    expect(await ec2.detach({ volumeId: V, instanceId: 'i-a', force: false })).toEqual({ kind: 'started' });
    expect(await shown(ec2)).toEqual(['i-b']);
    expect(await ec2.describeInstanceVolumes('i-a')).toEqual([]);
  });

  it('forgets it too once a wait for detached reaches its target', async () => {
    const ec2 = new FakeBlockStorage();
    ec2.volumes.set(V, onTwoInstances());
    await ec2.waitFor({ volumeId: V, instanceId: 'i-b', target: 'detached', deadline: 0 });
    expect(await shown(ec2)).toEqual(['i-a']);
  });

  it('keeps the attachment when the detach fails or the wait does not reach detached', async () => {
    const ec2 = new FakeBlockStorage();
    ec2.volumes.set(V, onTwoInstances());
    ec2.detachOutcome = { kind: 'throttled', message: 'slow down' };
    await ec2.detach({ volumeId: V, instanceId: 'i-a', force: false });
    ec2.waitResult = { state: 'detaching', reachedTarget: false };
    await ec2.waitFor({ volumeId: V, instanceId: 'i-b', target: 'detached', deadline: 0 });
    expect(await shown(ec2)).toEqual(['i-a', 'i-b']);
  });
});

describe('FakeBlockStorage with lagging reads', () => {
  it('still shows the attachment after EC2 let go of it', async () => {
    const ec2 = new FakeBlockStorage();
    ec2.volumes.set(V, onTwoInstances());
    ec2.readLag.add(V);
    await ec2.detach({ volumeId: V, instanceId: 'i-a', force: false });
    expect(await shown(ec2)).toEqual(['i-a', 'i-b']);
  });
});
