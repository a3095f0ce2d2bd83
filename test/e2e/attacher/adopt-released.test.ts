/**
 * The handover's awkward moment (docs/eks.md, Step 3): the csi-attacher sidecar attached a volume
 * and then stopped (its Deployment scaled to 0 for the fence) just before kcm deleted the
 * VolumeAttachment. Nothing of ours ever recorded that attachment; EC2 still shows it. Our pass
 * must detach it, through its own intent and lock, and let the object go.
 */
import { describe, expect, it } from 'vitest';
import { MemoryLease, SidecarElector } from '../../../sandbox/lease-election.js';
import { createSidecar } from '../../../sandbox/sidecar/sidecar.js';
import type { World } from '../../../sandbox/world.js';
import { useAttacherWorld, type AttacherWorld } from './fixture.js';
import type { KcmPlayer } from './kcm-player.js';

let world: World;
let kcm: KcmPlayer;
let fullPass: AttacherWorld['fullPass'];
useAttacherWorld((started) => ({ world, kcm, fullPass } = started));

/** The sidecar, leading alone, steps until `done` (a few steps: EC2 attaches in 100 ms of sandbox time). */
async function sidecarUntil(done: () => boolean): Promise<void> {
  const sidecar = createSidecar({
    kube: world.kube,
    ec2: world.ec2Client,
    elector: new SidecarElector(new MemoryLease(), 'ebs-csi-controller-0', () => world.clock.now()),
  });
  for (let step = 0; step < 5 && !done(); step++) {
    await sidecar.step();
    world.clock.advance(1_000);
  }
}

describe('a VolumeAttachment the sidecar attached, deleted by kcm after the sidecar stopped', () => {
  it('is detached by our pass (EC2 first, through our store), then let go', async () => {
    const volume = await world.createVolume();
    const name = await kcm.attach(volume, 'node-1');
    await sidecarUntil(() => kcm.va(name)?.status?.attached === true);
    expect(world.ec2.counters().calls).toMatchObject({ AttachVolume: 1 });
    await kcm.detach(name);

    const result = await fullPass();

    expect(result).toMatchObject({ converged: true, actions: 1 });
    expect(world.ec2.counters().calls).toMatchObject({ AttachVolume: 1, DetachVolume: 1 });
    expect(kcm.va(name)).toBeUndefined();
    expect(world.ec2.requests('DetachVolume')[0]?.params).toMatchObject({ VolumeId: volume.volumeId });
  });

  it('is detached from the instance its node-id annotation names when the Node and CSINode are gone', async () => {
    const volume = await world.createVolume();
    const name = await kcm.attach(volume, 'node-1');
    await sidecarUntil(() => kcm.va(name)?.status?.attached === true);
    const instanceId = world.nodes.find((node) => node.name === 'node-1')!.instanceId;
    expect(kcm.va(name)?.metadata.annotations).toMatchObject({ 'csi.alpha.kubernetes.io/node-id': instanceId });
    // The Node object is deleted (its CSINode goes with it) while the instance still runs.
    await kcm.unregister('node-1');
    world.kube.kubelet.deleteNode('node-1');
    await kcm.detach(name);

    await fullPass();
    await fullPass();

    expect(world.ec2.counters().calls).toMatchObject({ AttachVolume: 1, DetachVolume: 1 });
    expect(world.ec2.requests('DetachVolume')[0]?.params).toMatchObject({ VolumeId: volume.volumeId, InstanceId: instanceId });
    expect(kcm.va(name)).toBeUndefined();
  });
});
