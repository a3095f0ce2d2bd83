/**
 * A kube sandbox with two managed nodes (and their CSINodes), the simulated kcm on a manual clock,
 * and a hand-played attacher: the test decides what the external attacher answers on each VA.
 */
import { volumeAttachmentName } from '../../lambda/adapters/kubernetes/volume-attachment-name.js';
import { SANDBOX_EPOCH, ManualClock } from '../../sandbox/clock.js';
import { csiNodeObject, nodeObject, podObject, pvcObject, pvObject } from '../../sandbox/generate/kube-objects.js';
import type { GenNode, GenVolume } from '../../sandbox/generate/model.js';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.js';
import { createKcm, type Kcm } from '../../sandbox/kcm/kcm.js';
import { genPod } from '../../sandbox/small-cluster.js';

export const FINALIZER = 'external-attacher/ebs-csi-aws-com';

export const NODES: GenNode[] = [
  { name: 'node-1', instanceId: 'i-0000000000000000a', zone: 'us-east-1a', instanceType: 'm6i.xlarge' },
  { name: 'node-2', instanceId: 'i-0000000000000000b', zone: 'us-east-1a', instanceType: 'm6i.xlarge' },
];

export function genVolume(n: number, options: { multiAttach?: boolean } = {}): GenVolume {
  const volumeId = `vol-${String(n).padStart(17, '0')}`;
  return {
    volumeId,
    zone: 'us-east-1a',
    volumeType: options.multiAttach ? 'io2' : 'gp3',
    sizeGiB: 10,
    multiAttach: options.multiAttach === true,
    pvName: `pv-${n}`,
    pvUid: `00000000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`,
    claim: { namespace: 'default', name: `data-${n}`, uid: `00000000-0000-4000-8000-1000000000${String(n).padStart(2, '0')}` },
    accessModes: options.multiAttach ? ['ReadWriteMany'] : ['ReadWriteOnce'],
    volumeMode: 'Filesystem',
  };
}

export interface KcmWorld {
  kube: KubeSandbox;
  clock: ManualClock;
  kcm: Kcm;
  /** PV + bound PVC for the volume. */
  addVolume(volume: GenVolume): void;
  /** A running pod using the volume's claim on `node`. */
  addPod(name: string, volume: GenVolume, node: string): void;
  /** db-0 on `node` with the volume's VA attached (kcm saw it) and the kubelet's mount: the start of a detach story. */
  mountedDb(volume: GenVolume, node: string): void;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- read as loosely typed JSON, like the sandbox's own get
  va(volume: GenVolume, node: string): any;
  vaName(volume: GenVolume, node: string): string;
  /** The attacher's answers: success (finalizer, annotation, status), failure, and a finished detach. */
  attacher: {
    attach(volume: GenVolume, node: string): void;
    attachError(volume: GenVolume, node: string, message: string, errorCode?: number): void;
    detachError(volume: GenVolume, node: string, message: string): void;
    releaseFinalizer(volume: GenVolume, node: string): void;
  };
  events(reason?: string): { reason: string; message: string; count: number; type: string; involvedObject: { name: string } }[];
  stop(): Promise<void>;
}

export async function startKcmWorld(): Promise<KcmWorld> {
  const kube = await startKubeSandbox();
  const clock = new ManualClock(SANDBOX_EPOCH);
  kube.seed([...NODES.map((n) => nodeObject(n)), ...NODES.map(csiNodeObject)]);
  const vaName = (volume: GenVolume, node: string) => volumeAttachmentName(volume.volumeId, node);
  const status = (volume: GenVolume, node: string, change: (s: Record<string, unknown>) => object) =>
    kube.components.update(
      'VolumeAttachment',
      undefined,
      vaName(volume, node),
      (va) => ({ ...va, status: change(va.status as Record<string, unknown>) }),
      'status',
    );
  const instanceOf = (node: string) => NODES.find((n) => n.name === node)?.instanceId ?? '';
  const kcm = createKcm(kube, clock);
  const world: KcmWorld = {
    kube,
    clock,
    kcm,
    addVolume: (volume) => kube.seed([pvObject(volume), pvcObject(volume)]),
    addPod: (name, volume, node) => kube.seed([podObject(genPod(name, 'default', [volume.claim.name], node))]),
    mountedDb(volume, node) {
      world.addVolume(volume);
      world.addPod('db-0', volume, node);
      kcm.step();
      world.attacher.attach(volume, node);
      kcm.step();
      kube.kubelet.setVolumesInUse(node, [`kubernetes.io/csi/ebs.csi.aws.com^${volume.volumeId}`]);
    },
    va: (volume, node) => kube.get('VolumeAttachment', undefined, vaName(volume, node)) as unknown,
    vaName,
    attacher: {
      attach(volume, node) {
        kube.components.update('VolumeAttachment', undefined, vaName(volume, node), (va) => ({
          ...va,
          metadata: { ...va.metadata, finalizers: [FINALIZER], annotations: { 'csi.alpha.kubernetes.io/node-id': instanceOf(node) } },
        }));
        status(volume, node, () => ({ attached: true, attachmentMetadata: { devicePath: '/dev/xvdaa' } }));
      },
      attachError(volume, node, message, errorCode) {
        status(volume, node, (s) => ({
          ...s,
          attachError: { time: '2026-03-02T09:00:00Z', message, ...(errorCode ? { errorCode } : {}) },
        }));
      },
      detachError(volume, node, message) {
        status(volume, node, (s) => ({ ...s, detachError: { time: '2026-03-02T09:00:00Z', message } }));
      },
      releaseFinalizer(volume, node) {
        kube.components.update('VolumeAttachment', undefined, vaName(volume, node), (va) => ({
          ...va,
          metadata: { ...va.metadata, finalizers: [] },
        }));
      },
    },
    events: (reason) => (kube.list('Event') as ReturnType<KcmWorld['events']>).filter((e) => reason === undefined || e.reason === reason),
    stop: () => kube.stop(),
  };
  return world;
}
