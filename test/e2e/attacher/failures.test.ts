/**
 * Attacher mode when things go wrong: EC2's attachment limit (errorCode 8 for the kubelet), a
 * detach EC2 refuses (detachError, finalizer kept), the node plugin's CSINode gone at detach time
 * (the annotation finds the instance), and the finalizer coming off before the status is written.
 */
import { describe, expect, it } from 'vitest';
import { ATTACHER_FINALIZER } from '../../../lambda/core/attacher/names.js';
import type { World } from '../../../sandbox/world.js';
import { useAttacherWorld, type AttacherWorld } from './fixture.js';
import type { KcmPlayer } from './kcm-player.js';

let world: World;
let kcm: KcmPlayer;
let fullPass: AttacherWorld['fullPass'];
useAttacherWorld((started) => ({ world, kcm, fullPass } = started));

describe('attacher mode: failures reported on the VolumeAttachment', () => {
  it('reports the attachment limit as attachError with errorCode 8, attached unchanged', async () => {
    world.ec2.setAttachmentLimit(world.nodes[0]!.instanceId, 0);
    const volume = await world.createVolume();
    const name = await kcm.attach(volume, 'node-1');

    await fullPass();

    expect(kcm.va(name)!.status).toMatchObject({ attached: false, attachError: { errorCode: 8 } });
    expect(kcm.va(name)!.status!.attachError!.message).toMatch(/maximum number of volumes/);
  });

  it('reports a failed detach as detachError and keeps the finalizer', async () => {
    const volume = await world.createVolume();
    const name = await kcm.attach(volume, 'node-1');
    await fullPass();
    await kcm.detach(name);
    world.ec2.failNext({ action: 'DetachVolume', count: 1, code: 'UnauthorizedOperation', message: 'not allowed' });

    await fullPass();

    expect(kcm.va(name)).toMatchObject({
      metadata: { finalizers: [ATTACHER_FINALIZER] },
      status: { detachError: { message: expect.stringMatching(/not allowed/) as string } },
    });
  });

  it('detaches from the annotated instance when the CSINode is gone, finalizer off before the status', async () => {
    const volume = await world.createVolume();
    const name = await kcm.attach(volume, 'node-1');
    await fullPass();
    await kcm.unregister('node-1');
    await kcm.detach(name);
    world.kube.resetRequests();

    await fullPass();

    expect(kcm.va(name)).toBeUndefined();
    expect(world.ec2.counters().calls).toMatchObject({ DetachVolume: 1 });
    const writes = world.kube
      .requests()
      .filter((r) => r.resource === 'volumeattachments' && r.verb === 'patch')
      .map((r) => r.subresource ?? 'object');
    expect(writes).toEqual(['object', 'status']);
  });
});
