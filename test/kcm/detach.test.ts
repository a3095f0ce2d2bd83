/**
 * The simulated kcm's detach side: a volume leaves node status and its VA is deleted once no pod
 * needs it and the kubelet has unmounted it — or after 6 minutes on a node that is not Ready, or
 * at once with the out-of-service taint — and kcm waits for the attacher to release the VA.
 */
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return --
   stored objects are read as loosely typed JSON */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { genVolume, startKcmWorld, type KcmWorld } from './builders.js';

let world: KcmWorld;
const volume = genVolume(1);
const uniqueName = `kubernetes.io/csi/ebs.csi.aws.com^${volume.volumeId}`;

/** db-0 on node-1 with its volume attached and mounted, then the pod deleted. */
beforeEach(async () => {
  world = await startKcmWorld();
  world.mountedDb(volume, 'node-1');
  world.kube.kubelet.deletePod('default', 'db-0');
});
afterEach(() => world.stop());

const attachedOnNode1 = () => world.kube.get('Node', undefined, 'node-1').status.volumesAttached;

describe('detach after unmount', () => {
  it('waits while the kubelet reports the volume in use, then leaves node status and deletes the VA', () => {
    expect(world.kcm.step().deleted).toEqual([]);
    expect(attachedOnNode1()).toEqual([{ name: uniqueName, devicePath: '' }]);
    world.kube.kubelet.setVolumesInUse('node-1', []);
    const report = world.kcm.step();
    expect(report.deleted).toEqual([world.vaName(volume, 'node-1')]);
    expect(attachedOnNode1()).toEqual([]);
    expect(world.va(volume, 'node-1').metadata.deletionTimestamp).toEqual(expect.any(String));
  });

  it('counts the detach done only when the attacher has released the VA and it is gone', () => {
    world.kube.kubelet.setVolumesInUse('node-1', []);
    world.kcm.step();
    expect(world.kcm.step().detached).toEqual([]);
    world.attacher.releaseFinalizer(volume, 'node-1');
    expect(world.va(volume, 'node-1')).toBeUndefined();
    expect(world.kcm.step().detached).toEqual([world.vaName(volume, 'node-1')]);
  });
});

describe('detach of a mounted volume', () => {
  it.each([
    ['a Ready node, however long', { ready: true, taint: false }, 60 * 60_000, false],
    ['a not-Ready node, at exactly 6 minutes', { ready: false, taint: false }, 6 * 60_000, false],
    ['a not-Ready node, after 6 minutes', { ready: false, taint: false }, 6 * 60_000 + 1_000, true],
    ['a not-Ready node with the out-of-service taint, at once', { ready: false, taint: true }, 0, true],
  ])('on %s: deleted %s', (_name, node, waitMs, deleted) => {
    if (!node.ready) world.kube.kubelet.setReady('node-1', false);
    if (node.taint) world.kube.kubelet.setOutOfService('node-1', true);
    world.kcm.step(); // the detach is first wanted here
    world.clock.advance(waitMs);
    world.kcm.step();
    expect(world.va(volume, 'node-1')?.metadata.deletionTimestamp !== undefined).toBe(deleted);
    expect(attachedOnNode1()).toEqual(deleted ? [] : [{ name: uniqueName, devicePath: '' }]);
  });

  it('forgets the 6-minute wait when a pod wants the volume on that node again', () => {
    world.kube.kubelet.setReady('node-1', false);
    world.kcm.step();
    world.clock.advance(5 * 60_000);
    world.addPod('db-0-again', volume, 'node-1');
    world.kcm.step();
    world.kube.kubelet.deletePod('default', 'db-0-again');
    world.clock.advance(2 * 60_000);
    world.kcm.step();
    expect(world.va(volume, 'node-1').metadata.deletionTimestamp).toBeUndefined();
  });
});

describe('detach failures', () => {
  it('keeps the volume out of node status after a detachError and deletes again after the backoff', () => {
    world.kube.kubelet.setVolumesInUse('node-1', []);
    world.kcm.step();
    world.attacher.detachError(volume, 'node-1', 'rpc error: code = Internal desc = could not detach');
    expect(world.kcm.step().failed).toEqual([
      { va: world.vaName(volume, 'node-1'), kind: 'detach', error: 'rpc error: code = Internal desc = could not detach' },
    ]);
    expect(attachedOnNode1()).toEqual([]);
    world.clock.advance(499);
    expect(world.kcm.step().deleted).toEqual([]);
    world.clock.advance(1);
    expect(world.kcm.step().deleted).toEqual([world.vaName(volume, 'node-1')]);
  });

  it('fails a detach the attacher does not finish within 2 minutes', () => {
    world.kube.kubelet.setVolumesInUse('node-1', []);
    world.kcm.step();
    world.clock.advance(2 * 60_000);
    expect(world.kcm.step().failed).toMatchObject([
      {
        kind: 'detach',
        error: `timed out waiting for external-attacher of ebs.csi.aws.com CSI driver to detach volume ${volume.volumeId}`,
      },
    ]);
  });
});

/**
 * A terminated instance whose Node object is deleted before anyone tainted it (Karpenter, the cloud
 * node controller): kcm keeps the last volumesInUse it saw (nodeDelete → processVolumesInUse), finds
 * the node unhealthy (its object is gone) and waits maxWaitForUnmountDuration. Its 60 s verification
 * (csi_attacher.VolumesAreAttached reads the VA's `attached`) would forget a VA reported
 * `attached: false` sooner, but then never deletes it: docs/eks.md says why we do not report that.
 */
describe('a Node object deleted before it was tainted', () => {
  const vaOnNode1 = () => world.va(volume, 'node-1');
  beforeEach(() => {
    world.kcm.step(); // kcm has seen the node report the volume in use
    world.kube.components.delete('Node', undefined, 'node-1');
  });

  it('kcm waits its 6 minutes: the last volumesInUse it saw still says mounted', () => {
    world.kcm.step();
    world.clock.advance(6 * 60_000);
    world.kcm.step();
    expect(vaOnNode1().metadata.deletionTimestamp).toBeUndefined();
    world.clock.advance(1_000);
    world.kcm.step();
    expect(vaOnNode1().metadata.deletionTimestamp).toEqual(expect.any(String));
  });

  it('a VA reported attached: false is forgotten at the next sync, so the replacement attaches at once, and is never deleted', () => {
    world.kube.components.update(
      'VolumeAttachment',
      undefined,
      world.vaName(volume, 'node-1'),
      (va) => ({
        ...va,
        status: { attached: false },
      }),
      'status',
    );
    world.addPod('db-0-new', volume, 'node-2');
    world.kcm.step();
    expect(world.va(volume, 'node-2')).toBeUndefined(); // Multi-Attach: kcm still believes node-1 has it
    world.clock.advance(60_000);
    world.kcm.step();
    expect(world.va(volume, 'node-2')).toBeDefined();
    world.clock.advance(10 * 60_000);
    world.kcm.step();
    expect(vaOnNode1().metadata.deletionTimestamp).toBeUndefined();
  });
});
