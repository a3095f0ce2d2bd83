/**
 * EC2's reads are eventually consistent: right after DetachVolume, DescribeVolumes may still show
 * the volume attached. A detach EC2 accepted but whose wait still saw `attached` is resolved by a
 * later pass; were that stale `attached` taken as the truth, the volume would be listed on its node
 * again while EC2 takes it away (invariant 5).
 */
import { describe, expect, it } from 'vitest';
import type { Controller } from '../../lambda/composition.js';
import type { RunningClock } from '../../sandbox/clock.js';
import { FAST_CONTROLLER, type World, type WorldVolume } from '../../sandbox/world.js';
import { useWorld } from './world-fixture.js';

let world: World;
let controller: Controller;
let clock: RunningClock;
// A wait for `detached` shorter than the read lag, so the pass ends its wait on EC2's stale answer.
useWorld((started) => ({ world, controller, clock } = started), {
  controller: { ...FAST_CONTROLLER, waits: { maxAttachWaitMs: 5_000, maxDetachWaitMs: 300, reserveMs: 500 } },
});

const fullPass = () => controller.fullPass({ deadline: clock.now() + 30_000 });
/** EC2's ground truth (not what DescribeVolumes shows): the volume is detaching from node-1's instance, or gone from it. */
const leavingNode1 = (volume: WorldVolume): boolean => {
  const attachment = world.ec2.world.volumes.get(volume.volumeId)?.attachments.get(world.nodes[0]!.instanceId);
  return attachment === undefined || attachment.phase === 'detach';
};
const listedOnNode1 = (volume: WorldVolume): boolean => {
  const node = world.kube.get('Node', undefined, 'node-1') as { status?: { volumesAttached?: { name: string }[] } };
  return (node.status?.volumesAttached ?? []).some((entry) => entry.name.endsWith(volume.volumeId));
};

/** A volume attached and listed on node-1, whose pod then leaves; the detach's wait sees only stale reads. */
async function detachUnderReadLag(): Promise<WorldVolume> {
  const volume = await world.createVolume({ name: 'data-app-0' });
  world.addPod('app-0', volume, 'node-1');
  await fullPass();
  expect(listedOnNode1(volume)).toBe(true);

  world.kube.kubelet.deletePod(volume.namespace, 'app-0');
  clock.advance(1_000);
  world.ec2.lagReads(60_000, volume.volumeId);
  const detaching = await fullPass();
  expect(detaching.results).toContainEqual(expect.objectContaining({ kind: 'detach', outcome: 'deferred' }));
  expect(leavingNode1(volume)).toBe(true);
  return volume;
}

describe('an accepted detach under EC2 read lag', () => {
  it('is not listed again by the pass that resolves it, though its pod came back to the node', async () => {
    const volume = await detachUnderReadLag();

    world.addPod('app-0', volume, 'node-1');
    clock.advance(1_000);
    const resolving = await fullPass();

    expect(resolving.results).toEqual([expect.objectContaining({ kind: 'resolve', outcome: 'ok' })]);
    expect(leavingNode1(volume)).toBe(true);
    expect(listedOnNode1(volume)).toBe(false);
  });

  it('stays off the node while verification still reads it attached and the retried detach backs off', async () => {
    const volume = await detachUnderReadLag();
    clock.advance(1_000);

    for (const pass of ['resolving', 'verifying']) {
      const report = await fullPass();
      expect({ pass, listed: listedOnNode1(volume) }).toEqual({ pass, listed: false });
      expect(report.results.filter((r) => r.kind === 'detach')).toEqual([]);
    }
    expect(leavingNode1(volume)).toBe(true);
    expect((await controller.ports.store.get(volume.volumeId))?.attachments['node-1']).toMatchObject({ state: 'uncertain' });
  });
});
