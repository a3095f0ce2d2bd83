import { describe, expect, it } from 'vitest';
import type { Controller } from '../../lambda/composition.js';
import type { World, WorldVolume } from '../../sandbox/world.js';
import { reportedOn, volumeAttachments } from '../support/kube-reads.js';
import { lambdaContext } from '../../sandbox/events.js';
import type { Handlers } from '../../sandbox/local-stack.js';
import { useWorld } from './world-fixture.js';

let world: World;
let controller: Controller;
let handlers: Handlers;
useWorld((started) => ({ world, controller, handlers } = started));

const fullPass = () => handlers.scheduled({ pass: 'full' }, lambdaContext());
const ec2Calls = () => world.ec2.counters().calls;
const reported = (node: string) => reportedOn(world, node);

async function attachedDb(node: string): Promise<WorldVolume> {
  const volume = await world.createVolume({ name: 'data-db-0' });
  world.addPod('db-0', volume, node);
  await fullPass();
  world.kube.kubelet.setVolumesInUse(node, [volume.uniqueName]);
  return volume;
}

describe('volumes follow their pods', () => {
  it('detaches the volume once its pod is deleted and the kubelet unmounted it', async () => {
    const volume = await attachedDb('node-1');
    world.kube.kubelet.deletePod('default', 'db-0');
    world.kube.kubelet.setVolumesInUse('node-1', []);

    const result = await fullPass();

    expect(result).toMatchObject({ converged: true });
    expect(ec2Calls()).toMatchObject({ AttachVolume: 1, DetachVolume: 1 });
    expect(reported('node-1')).toEqual([]);
    expect(volumeAttachments(world)).toEqual([]);
    expect(await controller.ports.store.get(volume.volumeId)).toBeUndefined();
  });

  it('keeps a volume that is still mounted although its pod is gone (the kubelet has not unmounted yet)', async () => {
    await attachedDb('node-1');
    world.kube.kubelet.deletePod('default', 'db-0');

    const result = await fullPass();

    expect(result).toMatchObject({ converged: false });
    expect(ec2Calls().DetachVolume).toBeUndefined();
  });

  it("moves a rescheduled pod's volume: DetachVolume from the old node strictly before AttachVolume to the new one", async () => {
    const volume = await attachedDb('node-1');
    world.kube.kubelet.deletePod('default', 'db-0');
    world.kube.kubelet.setVolumesInUse('node-1', []);
    world.addPod('db-0', volume, 'node-2');
    world.ec2.resetCounters();

    // The first pass detaches (the new node's attach waits for it, as upstream's Multi-Attach rule says); the next attaches.
    await fullPass();
    await fullPass();

    const calls = world.ec2
      .requests()
      .map((r) => r.action)
      .filter((a) => a === 'AttachVolume' || a === 'DetachVolume');
    expect(calls).toEqual(['DetachVolume', 'AttachVolume']);
    expect(reported('node-1')).toEqual([]);
    expect(reported('node-2')).toEqual([{ name: volume.uniqueName, devicePath: '/dev/xvdaa' }]);
    expect(volumeAttachments(world).map((va) => va.spec.nodeName)).toEqual(['node-2']);
  });

  it('two overlapping passes start one attach between them', async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');

    await Promise.all([fullPass(), fullPass()]);

    expect(ec2Calls().AttachVolume).toBe(1);
    expect(reported('node-1')).toEqual([{ name: volume.uniqueName, devicePath: '/dev/xvdaa' }]);
  });
});
