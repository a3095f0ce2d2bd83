/**
 * The simulated kcm's attach side: which pods make it create a VolumeAttachment, what the VA holds,
 * and that node status lists the volume only once the attacher says `attached`.
 */
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-explicit-any --
   stored objects are read and edited as loosely typed JSON */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pvObject } from '../../sandbox/generate/kube-objects.js';
import { genPod } from '../../sandbox/small-cluster.js';
import { podObject } from '../../sandbox/generate/kube-objects.js';
import { genVolume, startKcmWorld, type KcmWorld } from './builders.js';

let world: KcmWorld;
beforeEach(async () => {
  world = await startKcmWorld();
});
afterEach(() => world.stop());

const volume = genVolume(1);
const uniqueName = `kubernetes.io/csi/ebs.csi.aws.com^${volume.volumeId}`;

describe('VolumeAttachments kcm creates', () => {
  it('names the VA csi-<sha256(handle + driver + node)> and points it at the PV', () => {
    world.addVolume(volume);
    world.addPod('db-0', volume, 'node-1');
    const report = world.kcm.step();
    const expected = `csi-${createHash('sha256')
      .update(`${volume.volumeId}ebs.csi.aws.com` + 'node-1')
      .digest('hex')}`;
    expect(report.created).toEqual([expected]);
    const va = world.kube.get('VolumeAttachment', undefined, expected);
    expect(va.spec).toEqual({ attacher: 'ebs.csi.aws.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } });
    expect(va.metadata.finalizers).toBeUndefined();
    expect(va.status).toEqual({ attached: false });
  });

  it('translates an in-tree awsElasticBlockStore PV to the CSI driver (the VA still names the PV)', () => {
    const inTree = pvObject(volume) as { spec: Record<string, unknown> };
    delete inTree.spec.csi;
    inTree.spec.awsElasticBlockStore = { volumeID: `aws://us-east-1a/${volume.volumeId}`, fsType: 'ext4' };
    world.addVolume(volume);
    world.kube.seed([inTree]);
    world.addPod('db-0', volume, 'node-1');
    world.kcm.step();
    expect(world.va(volume, 'node-1').spec.source).toEqual({ persistentVolumeName: 'pv-1' });
  });

  it('puts the translated spec of an inline awsElasticBlockStore volume in inlineVolumeSpec', () => {
    const pod = podObject(genPod('inline-0', 'default', [], 'node-1')) as { spec: { volumes: object[] } };
    pod.spec.volumes.push({ name: 'disk', awsElasticBlockStore: { volumeID: volume.volumeId, fsType: 'xfs' } });
    world.kube.seed([pod]);
    world.kcm.step();
    expect(world.va(volume, 'node-1').spec.source).toEqual({
      inlineVolumeSpec: {
        accessModes: ['ReadWriteOnce'],
        csi: { driver: 'ebs.csi.aws.com', volumeHandle: volume.volumeId, fsType: 'xfs' },
      },
    });
  });

  it.each([
    ['a pod on a node without the controller-managed annotation', 'unmanaged'],
    ['a pod not scheduled yet', 'unscheduled'],
    ['a pod that has finished', 'succeeded'],
    ['a claim not bound yet', 'unbound'],
    ['a PV of another CSI driver', 'other-driver'],
  ])('creates nothing for %s', (_name, setup) => {
    world.addVolume(volume);
    const pod = podObject(genPod('db-0', 'default', [volume.claim.name], setup === 'unscheduled' ? undefined : 'node-1')) as any;
    if (setup === 'succeeded') pod.status.phase = 'Succeeded';
    if (setup === 'unmanaged') {
      const node = world.kube.get('Node', undefined, 'node-1');
      delete node.metadata.annotations;
      world.kube.seed([node]);
    }
    if (setup === 'unbound') {
      const pvc = world.kube.get('PersistentVolumeClaim', 'default', volume.claim.name);
      world.kube.seed([{ ...pvc, spec: { ...pvc.spec, volumeName: undefined }, status: { phase: 'Pending' } }]);
    }
    if (setup === 'other-driver') {
      const pv = pvObject(volume) as any;
      pv.spec.csi.driver = 'ebs.csi.eks.amazonaws.com';
      world.kube.seed([pv]);
    }
    world.kube.seed([pod]);
    expect(world.kcm.step().created).toEqual([]);
    expect(world.kube.list('VolumeAttachment')).toEqual([]);
  });
});

describe('node status after attach', () => {
  it('lists the volume in volumesAttached (devicePath empty) only once the VA says attached, with a Normal event', () => {
    world.addVolume(volume);
    world.addPod('db-0', volume, 'node-1');
    world.kcm.step();
    world.clock.advance(1_000);
    world.kcm.step();
    expect(world.kube.get('Node', undefined, 'node-1').status.volumesAttached).toEqual([]);
    world.attacher.attach(volume, 'node-1');
    const report = world.kcm.step();
    expect(report.attached).toEqual([world.vaName(volume, 'node-1')]);
    expect(world.kube.get('Node', undefined, 'node-1').status.volumesAttached).toEqual([{ name: uniqueName, devicePath: '' }]);
    expect(world.events('SuccessfulAttachVolume')).toMatchObject([
      { type: 'Normal', involvedObject: { name: 'db-0' }, message: 'AttachVolume.Attach succeeded for volume "pv-1" ', count: 1 },
    ]);
    expect(world.kcm.step()).toMatchObject({ created: [], attached: [], nodeStatusWrites: 0 });
  });
});
