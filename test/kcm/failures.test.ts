/**
 * How the simulated kcm meets refusals and errors: the Multi-Attach check for exclusive volumes,
 * an attacher's `attachError` (retried with kcm's backoff, reported on the pod), an attacher that
 * never answers, a VA that stops saying attached, and the kubelet failing a pod on errorCode 8.
 */
/* eslint-disable @typescript-eslint/no-unsafe-member-access --
   stored objects are read as loosely typed JSON */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAttachLimitKubelet, POD_ATTACH_AND_MOUNT_TIMEOUT_MS } from '../../sandbox/kcm/attach-limit.js';
import { genVolume, startKcmWorld, type KcmWorld } from './builders.js';

let world: KcmWorld;
beforeEach(async () => {
  world = await startKcmWorld();
});
afterEach(() => world.stop());

const volume = genVolume(1);
const uniqueName = `kubernetes.io/csi/ebs.csi.aws.com^${volume.volumeId}`;

function attachedTo(node: string) {
  world.addPod(`db-${node}`, volume, node);
  world.kcm.step();
  world.attacher.attach(volume, node);
  world.kcm.step();
}

describe('Multi-Attach', () => {
  it('does not attach a ReadWriteOnce volume attached elsewhere, and tells the waiting pod once', () => {
    world.addVolume(volume);
    attachedTo('node-1');
    world.addPod('db-new', volume, 'node-2');
    for (let i = 0; i < 3; i++) expect(world.kcm.step().created).toEqual([]);
    expect(world.va(volume, 'node-2')).toBeUndefined();
    expect(world.events('FailedAttachVolume')).toMatchObject([
      {
        type: 'Warning',
        involvedObject: { name: 'db-new' },
        count: 1,
        message: 'Multi-Attach error for volume "pv-1" Volume is already used by pod(s) db-node-1',
      },
    ]);
  });

  it('attaches it to the new node once it has left the old one', () => {
    world.addVolume(volume);
    attachedTo('node-1');
    world.addPod('db-new', volume, 'node-2');
    world.kube.kubelet.deletePod('default', 'db-node-1');
    world.kcm.step();
    expect(world.va(volume, 'node-2')).toBeUndefined();
    world.attacher.releaseFinalizer(volume, 'node-1');
    expect(world.kcm.step()).toMatchObject({ detached: [world.vaName(volume, 'node-1')], created: [world.vaName(volume, 'node-2')] });
  });

  it('lets a ReadWriteMany volume attach to two nodes', () => {
    const shared = genVolume(2, { multiAttach: true });
    world.addVolume(shared);
    world.addPod('a', shared, 'node-1');
    world.kcm.step();
    world.attacher.attach(shared, 'node-1');
    world.kcm.step();
    world.addPod('b', shared, 'node-2');
    expect(world.kcm.step().created).toEqual([world.vaName(shared, 'node-2')]);
  });
});

describe('attach errors', () => {
  const message = 'rpc error: code = Internal desc = Could not attach volume';

  it('reports attachError on the pod and retries after 500 ms, 1 s, 2 s, … (the event aggregated)', () => {
    world.addVolume(volume);
    world.addPod('db-0', volume, 'node-1');
    world.kcm.step();
    world.attacher.attachError(volume, 'node-1', message);
    const failures = [0, 499, 1, 999, 1, 1_999, 1].map((advance) => {
      world.clock.advance(advance);
      return world.kcm.step().failed.length;
    });
    expect(failures).toEqual([1, 0, 1, 0, 1, 0, 1]);
    expect(world.events('FailedAttachVolume')).toMatchObject([
      { involvedObject: { name: 'db-0' }, count: 4, message: `AttachVolume.Attach failed for volume "pv-1" : ${message}` },
    ]);
    expect(world.kube.get('Node', undefined, 'node-1').status.volumesAttached).toEqual([]);
  });

  it('attaches once the attacher clears the error and says attached', () => {
    world.addVolume(volume);
    world.addPod('db-0', volume, 'node-1');
    world.kcm.step();
    world.attacher.attachError(volume, 'node-1', message);
    world.kcm.step();
    world.attacher.attach(volume, 'node-1');
    world.clock.advance(500);
    expect(world.kcm.step().attached).toEqual([world.vaName(volume, 'node-1')]); // the retry's first look
    expect(world.kube.get('Node', undefined, 'node-1').status.volumesAttached).toEqual([{ name: uniqueName, devicePath: '' }]);
  });

  it('fails an attach the attacher does not answer within 2 minutes', () => {
    world.addVolume(volume);
    world.addPod('db-0', volume, 'node-1');
    world.kcm.step();
    world.clock.advance(2 * 60_000);
    expect(world.kcm.step().failed).toEqual([
      {
        va: world.vaName(volume, 'node-1'),
        kind: 'attach',
        error: `timed out waiting for external-attacher of ebs.csi.aws.com CSI driver to attach volume ${volume.volumeId}`,
      },
    ]);
  });

  it('fails the pod once its mount wait runs out when the error says the node is full (errorCode 8), not before', () => {
    const kubelet = createAttachLimitKubelet(world.kube, world.clock);
    world.addVolume(volume);
    world.addPod('db-0', volume, 'node-1');
    world.kcm.step();
    world.attacher.attachError(volume, 'node-1', 'rpc error: code = ResourceExhausted desc = Attachment limit exceeded', 8);
    expect(kubelet.step()).toEqual([]);
    world.clock.advance(POD_ATTACH_AND_MOUNT_TIMEOUT_MS - 1);
    expect(kubelet.step()).toEqual([]);
    world.clock.advance(1);
    expect(kubelet.step()).toEqual(['default/db-0']);
    expect(world.kube.get('Pod', 'default', 'db-0').status.phase).toBe('Failed');
  });

  it('leaves a pod whose attach failed for another reason waiting', () => {
    const kubelet = createAttachLimitKubelet(world.kube, world.clock);
    world.addVolume(volume);
    world.addPod('db-0', volume, 'node-1');
    world.kcm.step();
    world.attacher.attachError(volume, 'node-1', message, 13);
    kubelet.step();
    world.clock.advance(10 * 60_000);
    expect(kubelet.step()).toEqual([]);
  });
});

describe('what kcm re-checks every minute', () => {
  it('takes a volume whose VA stops saying attached out of node status, then attaches it again', () => {
    world.addVolume(volume);
    attachedTo('node-1');
    world.kube.components.update(
      'VolumeAttachment',
      undefined,
      world.vaName(volume, 'node-1'),
      (va) => ({ ...va, status: { attached: false } }),
      'status',
    );
    world.clock.advance(60_000);
    world.kcm.step();
    expect(world.kube.get('Node', undefined, 'node-1').status.volumesAttached).toEqual([]);
    world.attacher.attach(volume, 'node-1');
    expect(world.kcm.step().attached).toEqual([world.vaName(volume, 'node-1')]);
  });
});

describe('CSINodes', () => {
  it('go with their node, as the garbage collector removes what the node owned', () => {
    expect(world.kube.get('CSINode', undefined, 'node-2').spec.drivers).toEqual([
      {
        name: 'ebs.csi.aws.com',
        nodeID: 'i-0000000000000000b',
        topologyKeys: ['kubernetes.io/os', 'topology.ebs.csi.aws.com/zone', 'topology.kubernetes.io/zone'],
        allocatable: { count: 26 },
      },
    ]);
    world.kube.components.delete('Node', undefined, 'node-2');
    world.kcm.step();
    expect(world.kube.list('CSINode').map((c: { metadata: { name: string } }) => c.metadata.name)).toEqual(['node-1']);
  });
});
