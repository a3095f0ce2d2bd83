/**
 * A takeover from kube-controller-manager while a schedule tick starts a second full pass: two
 * invocations in separate execution environments (composition root, clients, limiter). The
 * takeover is held through the store, so between them each claimed volume is described once, by
 * the pass that holds it, and neither attaches or detaches anything.
 */
import { AttachVolumeCommand } from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeNode } from '../../lambda/core/kube.js';
import { RunningClock } from '../../sandbox/clock.js';
import { startWorld, type World, type WorldVolume } from '../../sandbox/world.js';

const VOLUMES = 6;

let world: World;
beforeEach(async () => {
  world = await startWorld({ nodes: 2, clock: new RunningClock() });
});
afterEach(async () => world.stop());

/** Volumes kcm attached and reported before we arrived: in use by their pods, listed on their nodes. */
async function attachedByKcm(): Promise<WorldVolume[]> {
  const volumes: WorldVolume[] = [];
  for (let i = 0; i < VOLUMES; i++) {
    const node = world.nodes[i % world.nodes.length]!;
    const volume = await world.createVolume({ name: `data-app-${i}` });
    world.addPod(`app-${i}`, volume, node.name);
    const device = `/dev/xvdb${String.fromCharCode(97 + Math.floor(i / 2))}`;
    await world.ec2Client.send(new AttachVolumeCommand({ VolumeId: volume.volumeId, InstanceId: node.instanceId, Device: device }));
    volumes.push(volume);
  }
  world.clock.advance(10_000); // EC2 finishes attaching
  for (const node of world.nodes) {
    const listed = volumes.filter((_, i) => world.nodes[i % world.nodes.length] === node);
    const object = world.kube.get('Node', undefined, node.name) as KubeNode;
    const volumesAttached = listed.map((v) => ({ name: v.uniqueName, devicePath: '' }));
    world.kube.seed([{ ...object, status: { ...object.status, volumesAttached } }]);
    world.kube.kubelet.setVolumesInUse(
      node.name,
      listed.map((v) => v.uniqueName),
    );
  }
  return volumes;
}

describe('two full passes taking over at once, each in its own execution environment', () => {
  it('one holds the takeover: every claimed volume described once, by one pass, nothing attached or detached', async () => {
    const volumes = await attachedByKcm();
    const mutationsBefore = world.ec2.requests('AttachVolume').length;

    const [first, second] = [world.invocation(), world.invocation()];
    const reports = await Promise.all([first, second].map((c) => c.fullPass({ deadline: world.clock.now() + 60_000 })));

    const described = world.ec2.requests('DescribeVolumes').flatMap((r) =>
      Object.entries(r.params)
        .filter(([k]) => k.startsWith('VolumeId'))
        .map(([, v]) => v),
    );
    for (const volume of volumes)
      expect(
        described.filter((id) => id === volume.volumeId),
        volume.volumeId,
      ).toHaveLength(1);
    expect(reports.map((r) => r.takeover)).toEqual(
      expect.arrayContaining([
        { done: VOLUMES, left: 0 },
        { done: 0, left: VOLUMES },
      ]),
    );
    expect(world.ec2.requests('AttachVolume')).toHaveLength(mutationsBefore);
    expect(world.ec2.requests('DetachVolume')).toHaveLength(0);
  });
});
