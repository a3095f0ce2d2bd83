/**
 * EC2's reads are eventually consistent: right after AttachVolume, DescribeVolumes may still show
 * the volume unattached. An attach EC2 accepted stays `uncertain` until EC2 settles it; were it
 * forgotten, an io2 volume (Multi-Attach capable) behind a ReadWriteOnce claim could be attached to
 * a second node while the first attachment stands.
 */
import { describe, expect, it } from 'vitest';
import type { Controller } from '../../lambda/composition.js';
import type { RunningClock } from '../../sandbox/clock.js';
import { FAST_CONTROLLER, type World, type WorldVolume } from '../../sandbox/world.js';
import { useWorld } from './world-fixture.js';

let world: World;
let controller: Controller;
let clock: RunningClock;
// A wait for `attached` shorter than the read lag, so the pass ends its wait on EC2's stale answer.
useWorld((started) => ({ world, controller, clock } = started), {
  controller: { ...FAST_CONTROLLER, waits: { maxAttachWaitMs: 300, maxDetachWaitMs: 5_000, reserveMs: 500 } },
});

const fullPass = () => controller.fullPass({ deadline: clock.now() + 30_000 });
/** Instances EC2 really has the volume on (ground truth, not what DescribeVolumes shows). */
const attachedInstances = (volume: WorldVolume) => [...(world.ec2.world.volumes.get(volume.volumeId)?.attachments.keys() ?? [])];

/** An io2 volume EC2 would attach to several instances, claimed ReadWriteOnce: only our rule keeps it on one node. */
async function exclusiveIo2Volume(): Promise<WorldVolume> {
  const volume = await world.createVolume({ name: 'data-db-0', multiAttach: true });
  const pv = world.kube.get('PersistentVolume', undefined, volume.pvName) as { spec: Record<string, unknown> };
  const pvc = world.kube.get('PersistentVolumeClaim', volume.namespace, volume.claimName) as {
    spec: Record<string, unknown>;
    status: Record<string, unknown>;
  };
  const rwo = { accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem' };
  world.kube.seed([
    { ...pv, spec: { ...pv.spec, ...rwo } },
    { ...pvc, spec: { ...pvc.spec, ...rwo }, status: { ...pvc.status, accessModes: ['ReadWriteOnce'] } },
  ]);
  return volume;
}

describe('an accepted attach under EC2 read lag', () => {
  it('stays uncertain and keeps an exclusive volume off a second node until EC2 settles it', async () => {
    const volume = await exclusiveIo2Volume();
    const [node1, node2] = world.nodes;
    world.addPod('db-0', volume, 'node-1');
    world.ec2.lagReads(60_000, volume.volumeId);

    const first = await fullPass();
    expect(first.results).toEqual([expect.objectContaining({ kind: 'attach', outcome: 'deferred' })]);
    expect(attachedInstances(volume)).toEqual([node1!.instanceId]);
    expect((await controller.ports.store.get(volume.volumeId))?.attachments['node-1']).toMatchObject({ state: 'uncertain' });

    // The pod moves while EC2 still shows nothing on node-1.
    world.kube.kubelet.deletePod(volume.namespace, 'db-0');
    world.addPod('db-0', volume, 'node-2');
    clock.advance(1_000);
    const moved = await fullPass();
    expect(moved.actions.map((a) => `${a.kind} ${a.nodeName}`)).toEqual(['unreport node-1', 'detach node-1', 'multiAttachConflict node-2']);
    expect(world.ec2.counters().calls.AttachVolume).toBe(1);
    expect(attachedInstances(volume).length).toBeLessThanOrEqual(1);

    world.ec2.lagReads(0, volume.volumeId);
    clock.advance(1_000);
    const settled = await fullPass();
    expect(settled.results).toContainEqual(expect.objectContaining({ kind: 'attach', nodeName: 'node-2', outcome: 'ok' }));
    expect(attachedInstances(volume)).toEqual([node2!.instanceId]);
  });
});
