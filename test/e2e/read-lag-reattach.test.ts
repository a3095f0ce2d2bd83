/**
 * EC2's reads are eventually consistent: after DetachVolume, DescribeVolumes may go on showing the
 * attachment from before it. An attach of the same volume to the same instance that EC2 accepts
 * meanwhile must not take that leftover `attached` view for its own: the node would list a volume
 * EC2 is still attaching (invariant 5). Its own attachment is on the device AttachVolume answered
 * and no older than that answer's AttachTime.
 */
import { describe, expect, it } from 'vitest';
import type { Controller } from '../../lambda/composition.js';
import type { RunningClock } from '../../sandbox/clock.js';
import { LiveOracle } from '../../sandbox/oracle/live.js';
import { FAST_CONTROLLER, type World } from '../../sandbox/world.js';
import { useWorld } from './world-fixture.js';

let world: World;
let controller: Controller;
let clock: RunningClock;
// EC2 attaches slowly enough that its truth is still `attaching` when the wait reads the leftover view.
useWorld((started) => ({ world, controller, clock } = started), {
  ec2Delays: { attachMs: 3_000 },
  controller: { ...FAST_CONTROLLER, waits: { maxAttachWaitMs: 5_000, maxDetachWaitMs: 300, reserveMs: 500 } },
});

const fullPass = () => controller.fullPass({ deadline: clock.now() + 30_000 });
const attachesOf = (results: Awaited<ReturnType<typeof fullPass>>['results']) => results.filter((r) => r.kind === 'attach');

describe('an attach soon after a detach of the same volume from the same instance, under EC2 read lag', () => {
  it('does not take the leftover attached view for its own, so the node lists it only once EC2 has attached it', async () => {
    const oracle = new LiveOracle(world.ec2, world.kube, { maxWaitForUnmountMs: 360_000 });
    const volume = await world.createVolume({ name: 'data-app-0' });
    world.addPod('app-0', volume, 'node-1');
    expect(attachesOf((await fullPass()).results)).toEqual([expect.objectContaining({ outcome: 'ok' })]);
    world.kube.kubelet.deletePod(volume.namespace, 'app-0');
    clock.advance(1_000);
    world.ec2.lagReads(60_000, volume.volumeId);
    await fullPass(); // unreport, DetachVolume; the wait still reads `attached`
    world.addPod('app-0', volume, 'node-1');

    const attaches = [];
    for (let pass = 0; pass < 3 && world.ec2.requests('AttachVolume').length < 2; pass++) {
      clock.advance(10_000);
      attaches.push(...attachesOf((await fullPass()).results));
    }
    expect(world.ec2.requests('AttachVolume')).toHaveLength(2);
    expect(attaches).toEqual([expect.objectContaining({ outcome: 'deferred' })]);
    expect(oracle.violations).toEqual([]);

    world.ec2.lagReads(0, volume.volumeId);
    clock.advance(10_000);
    await fullPass();
    await fullPass();
    const node = world.kube.get('Node', undefined, 'node-1') as { status?: { volumesAttached?: { name: string }[] } };
    expect(node.status?.volumesAttached?.map((entry) => entry.name)).toEqual([volume.uniqueName]);
    oracle.stop();
    expect(oracle.violations).toEqual([]);
  });
});
