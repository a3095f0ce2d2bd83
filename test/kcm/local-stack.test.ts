/**
 * The hook for the local stack: a world started with `simulateKcm` carries a kcm to step, and every
 * world's nodes come with the CSINodes the kubelet registers.
 */
/* eslint-disable @typescript-eslint/no-unsafe-member-access --
   stored objects are read as loosely typed JSON */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../../sandbox/world.js';

let world: World;
beforeAll(async () => {
  world = await startWorld({ nodes: 1, simulateKcm: true });
});
afterAll(() => world.stop());

describe('a world with the simulated kcm', () => {
  it('registers a CSINode naming each node instance', () => {
    const node = world.nodes[0];
    expect(world.kube.get('CSINode', undefined, node?.name ?? '').spec.drivers[0]).toMatchObject({
      name: 'ebs.csi.aws.com',
      nodeID: node?.instanceId,
    });
  });

  it('creates the VA for a pod when stepped', async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');
    expect(world.kcm?.step().created).toHaveLength(1);
    expect(world.kube.list('VolumeAttachment')[0].spec).toMatchObject({
      nodeName: 'node-1',
      source: { persistentVolumeName: volume.pvName },
    });
  });
});
