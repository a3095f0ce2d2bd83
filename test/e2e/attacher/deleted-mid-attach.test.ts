/**
 * kcm deletes a VolumeAttachment while our AttachVolume is between sent and settled (the pod went
 * away, or moved, the moment it was scheduled).
 *
 * Upstream (kubernetes-csi/external-attacher `pkg/controller/csi_handler.go`): the VA is synced
 * on its own work-queue key; `syncAttach` runs ControllerPublish to the end and then
 * `markAsAttached` patches the status of the copy it started from, so upstream can mark a deleting
 * object `attached: true`; the update that set the deletionTimestamp then queues the key again,
 * and `syncDetach` (our finalizer is there) runs ControllerUnpublish, takes the finalizer off and
 * clears the status (`markAsDetached`). We keep the outcome (detached, finalizer off only after the
 * detach, no error left) without the stale `attached: true`: kcm is already waiting for the
 * object to disappear, and a deleting object that reads as attached tells everyone else a lie.
 */
import type { Ports } from '../../../lambda/composition.js';
import { describe, expect, it } from 'vitest';
import { lambdaContext } from '../../../sandbox/events.js';
import type { World } from '../../../sandbox/world.js';
import { useAttacherWorld } from './fixture.js';
import type { KcmPlayer } from './kcm-player.js';
import { watchVaWrites } from './va-writes.js';

let world: World;
let kcm: KcmPlayer;
useAttacherWorld((started) => ({ world, kcm } = started));

/** Ports whose AttachVolume, once EC2 has accepted it, is followed at once by `then` (kcm's delete). */
function afterAttachSent(then: () => Promise<void>): (ports: Ports) => Ports {
  return (ports) => ({
    ...ports,
    blockStorage: Object.assign(Object.create(ports.blockStorage) as Ports['blockStorage'], {
      attach: async (request: Parameters<Ports['blockStorage']['attach']>[0]) => {
        const outcome = await ports.blockStorage.attach(request);
        await then();
        return outcome;
      },
    }),
  });
}

describe('attacher mode: kcm deletes the VolumeAttachment while AttachVolume is in flight', () => {
  it('ends detached, the finalizer off only after EC2 detached, never attached: true on the deleting object, no error', async () => {
    const volume = await world.createVolume();
    const name = await kcm.attach(volume, 'node-1');
    const writes = watchVaWrites(world, volume.volumeId);
    const dying = world.invocation({ wrapPorts: afterAttachSent(() => kcm.detach(name)) });

    await world.handlers(dying).scheduled({ pass: 'full' }, lambdaContext());
    await world.handlers().scheduled({ pass: 'full' }, lambdaContext());

    writes.stop();
    expect(kcm.va(name)).toBeUndefined();
    expect(world.ec2.counters().calls).toMatchObject({ AttachVolume: 1, DetachVolume: 1 });
    const instance = world.nodes[0]!.instanceId;
    const onDeleting = writes.writes.filter((w) => w.va?.metadata.deletionTimestamp !== undefined);
    expect(onDeleting.filter((w) => w.va?.status?.attached === true)).toEqual([]);
    expect(onDeleting.flatMap((w) => [w.va?.status?.attachError, w.va?.status?.detachError]).filter(Boolean)).toEqual([]);
    const release = writes.writes.find((w) => w.part === 'object' && w.va === undefined);
    expect(release).toBeDefined();
    expect(release!.ec2[instance]).toBeUndefined();
  });
});
