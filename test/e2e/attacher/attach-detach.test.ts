/**
 * Attacher mode end to end, through the real handlers against the local stack: the test plays kcm
 * (creates and deletes VolumeAttachments), the controller does external-attacher's part.
 */
import { describe, expect, it } from 'vitest';
import { ATTACHER_FINALIZER, NODE_ID_ANNOTATION } from '../../../lambda/core/attacher/names.js';
import type { World } from '../../../sandbox/world.js';
import { useAttacherWorld, type AttacherWorld } from './fixture.js';
import type { KcmPlayer } from './kcm-player.js';
import { watchVaWrites } from './va-writes.js';

let world: World;
let kcm: KcmPlayer;
let fullPass: AttacherWorld['fullPass'];
useAttacherWorld((started) => ({ world, kcm, fullPass } = started));

const vaEvents = () =>
  (world.kube.list('Event', 'default') as { reason: string; involvedObject: { kind: string } }[]).filter(
    (e) => e.involvedObject.kind === 'VolumeAttachment',
  );

describe('attacher mode: kcm decides, we attach', () => {
  it('attaches a VolumeAttachment: finalizers on PV and VA, node-id annotation, status with devicePath, an event', async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    const name = await kcm.attach(volume, 'node-1');

    const result = await fullPass();

    expect(result).toMatchObject({ converged: true });
    expect(world.ec2.counters().calls).toMatchObject({ AttachVolume: 1 });
    expect(kcm.va(name)).toMatchObject({
      metadata: { finalizers: [ATTACHER_FINALIZER], annotations: { [NODE_ID_ANNOTATION]: world.nodes[0]!.instanceId } },
      status: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdaa' } },
    });
    expect(kcm.va(name)!.status!.attachError).toBeUndefined();
    expect(kcm.pv(volume.pvName)!.metadata.finalizers).toContain(ATTACHER_FINALIZER);
    expect(vaEvents().map((e) => e.reason)).toEqual(['SuccessfulAttachVolume']);
    // Never node status in attacher mode: kcm writes volumesAttached.
    expect(world.kube.counters()).not.toHaveProperty(['patch nodes/status']);
  });

  it('detaches when kcm deletes the VolumeAttachment: EC2 first, then our finalizer off, then the status, and the object is gone', async () => {
    const volume = await world.createVolume();
    const name = await kcm.attach(volume, 'node-1');
    await fullPass();
    await kcm.detach(name);
    expect(kcm.va(name)?.metadata.deletionTimestamp).toBeTruthy();
    const writes = watchVaWrites(world, volume.volumeId);
    world.kube.resetRequests();

    await fullPass();

    writes.stop();
    expect(world.ec2.counters().calls).toMatchObject({ DetachVolume: 1 });
    expect(kcm.va(name)).toBeUndefined();
    // The finalizer was the last one: taking it off let the object go, with EC2 showing no attachment by then.
    expect(writes.writes).toEqual([{ name, part: 'object', va: undefined, ec2: {} }]);
    const order = world.kube
      .requests()
      .filter((r) => r.resource === 'volumeattachments' && r.verb === 'patch')
      .map((r) => `${r.subresource ?? 'object'} ${r.status}`);
    expect(order).toEqual(['object 200', 'status 404']);
  });

  it('removes the PV finalizer once the PV is being deleted and no VolumeAttachment names it', async () => {
    const volume = await world.createVolume();
    const name = await kcm.attach(volume, 'node-1');
    await fullPass();
    await kcm.detach(name);
    await fullPass();
    world.kube.seed([
      { ...kcm.pv(volume.pvName)!, metadata: { ...kcm.pv(volume.pvName)!.metadata, deletionTimestamp: new Date().toISOString() } },
    ]);

    await fullPass();

    expect(kcm.pv(volume.pvName)?.metadata.finalizers ?? []).not.toContain(ATTACHER_FINALIZER);
  });
});
