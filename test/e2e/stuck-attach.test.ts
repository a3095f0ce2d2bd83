import { DescribeVolumesCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import type { Controller } from '../../lambda/composition.js';
import type { World } from '../../sandbox/world.js';
import { reportedOn, volumeAttachments } from '../support/kube-reads.js';
import type { RunningClock } from '../../sandbox/clock.js';
import { FAST_CONTROLLER } from '../../sandbox/world.js';
import { useWorld } from './world-fixture.js';

let world: World;
let controller: Controller;
let clock: RunningClock;
// A short wait for `attached`, so the stuck attach is left to the next pass at once.
useWorld((started) => ({ world, controller, clock } = started), {
  controller: { ...FAST_CONTROLLER, waits: { maxAttachWaitMs: 300, maxDetachWaitMs: 5_000, reserveMs: 500 } },
});

const fullPass = () => controller.fullPass({ deadline: clock.now() + 30_000 });

describe('an attach stuck in `attaching` (DESIGN §8)', () => {
  it('is detached after 90 s and retried from scratch, and ends attached', async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');
    world.ec2.stickAttach(volume.volumeId); // this one attach never leaves `attaching`

    const first = await fullPass();
    expect(first.results).toEqual([expect.objectContaining({ kind: 'attach', outcome: 'deferred' })]);
    expect((await controller.ports.store.get(volume.volumeId))?.attachments['node-1']).toMatchObject({ state: 'attaching' });
    expect(reportedOn(world, 'node-1')).toEqual([]);

    clock.advance(60_000);
    const stillWaiting = await fullPass();
    expect(stillWaiting.actions.filter((a) => a.kind === 'detach')).toEqual([]);

    clock.advance(31_000);
    const unstuck = await fullPass();
    expect(unstuck.results).toEqual([expect.objectContaining({ kind: 'detach', outcome: 'ok', forcedTrigger: 'stuck-attach' })]);
    expect(world.ec2.requests('DetachVolume').map((r) => r.params)).toEqual([expect.not.objectContaining({ Force: 'true' })]);
    // Every action succeeded, but the pod's volume is not attached: not converged.
    expect(unstuck.converged).toBe(false);
    expect(unstuck.notAttached).toEqual([{ volumeId: volume.volumeId, nodeName: 'node-1', state: 'not attached' }]);

    const retried = await fullPass();
    expect(retried).toMatchObject({ converged: true });
    expect(
      world.ec2
        .requests()
        .map((r) => r.action)
        .filter((a) => a === 'AttachVolume' || a === 'DetachVolume'),
    ).toEqual(['AttachVolume', 'DetachVolume', 'AttachVolume']);
    expect(world.ec2.counters().calls).toMatchObject({ AttachVolume: 2, DetachVolume: 1 });
    const described = await world.ec2Client.send(new DescribeVolumesCommand({ VolumeIds: [volume.volumeId] }));
    expect(described.Volumes?.[0]?.Attachments).toEqual([
      expect.objectContaining({ InstanceId: world.nodes[0]!.instanceId, State: 'attached' }),
    ]);
    // The retry may get another device name: the adapter holds a name it handed out for a while.
    const device = described.Volumes?.[0]?.Attachments?.[0]?.Device;
    expect((await controller.ports.store.get(volume.volumeId))?.attachments['node-1']).toMatchObject({ state: 'attached', device });
    expect(reportedOn(world, 'node-1')).toEqual([{ name: volume.uniqueName, devicePath: device }]);
    expect(volumeAttachments(world).map((va) => va.status)).toEqual([
      expect.objectContaining({ attached: true, attachmentMetadata: { devicePath: device } }),
    ]);
  });
});
