import { describe, expect, it } from 'vitest';
import {
  nodeFromJson,
  podFromJson,
  pvFromJson,
  pvcFromJson,
  volumeAttachmentFromJson,
} from '../../lambda/adapters/kubernetes/json-mapping.js';
import { IncompleteReadError } from '../../lambda/ports/cluster.js';

const mappers = {
  Node: nodeFromJson,
  Pod: podFromJson,
  PersistentVolumeClaim: pvcFromJson,
  PersistentVolume: pvFromJson,
  VolumeAttachment: volumeAttachmentFromJson,
};

describe('JSON of the API server → the core shapes', () => {
  it('a pod keeps what the core reads: identity, node, the EBS-relevant sources of its volumes and which state each container is in', () => {
    const pod = podFromJson({
      metadata: {
        name: 'web-1',
        namespace: 'shop',
        uid: 'u1',
        deletionTimestamp: '2026-01-01T00:00:00Z',
        labels: { app: 'web' },
        annotations: { note: 'x'.repeat(1000) },
        ownerReferences: [{ uid: 'rs-1', kind: 'ReplicaSet', controller: true }],
        finalizers: ['example.com/keep'],
        managedFields: [{}],
      },
      spec: {
        nodeName: 'node-1',
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'data-1', readOnly: true } },
          { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'] } } } },
          { name: 'legacy', awsElasticBlockStore: { volumeID: 'vol-0123456789abcdef0', fsType: 'ext4' } },
          { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
        ],
      },
      status: {
        phase: 'Running',
        podIP: '10.0.0.1',
        containerStatuses: [
          {
            name: 'app',
            image: 'web:1',
            state: { running: { startedAt: '2026-01-01T00:00:00Z' } },
            lastState: { terminated: { exitCode: 1 } },
          },
          { name: 'log', state: { terminated: { exitCode: 0, reason: 'Completed' }, waiting: null } },
        ],
        initContainerStatuses: [{ name: 'init', state: { waiting: { reason: 'PodInitializing' } } }],
      },
    });
    expect(pod).toEqual({
      metadata: { name: 'web-1', namespace: 'shop', uid: 'u1', deletionTimestamp: '2026-01-01T00:00:00Z' },
      spec: {
        nodeName: 'node-1',
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'data-1', readOnly: true } },
          { name: 'scratch', ephemeral: {} },
          { name: 'legacy', awsElasticBlockStore: { volumeID: 'vol-0123456789abcdef0', fsType: 'ext4' } },
          { name: 'token' },
        ],
      },
      status: {
        phase: 'Running',
        containerStatuses: [
          { name: 'app', state: { running: {} } },
          { name: 'log', state: { terminated: {} } },
        ],
        initContainerStatuses: [{ name: 'init', state: { waiting: {} } }],
      },
    });
  });

  it('a container status without a recorded state keeps none, as upstream reads it (running)', () => {
    const pod = podFromJson({
      metadata: {},
      status: { containerStatuses: [{ name: 'a' }, { name: 'b', state: null }, { name: 'c', state: {} }] },
    });
    expect(pod.status?.containerStatuses).toEqual([{ name: 'a' }, { name: 'b', state: null }, { name: 'c', state: {} }]);
  });

  it('a PVC keeps its owner references (generic ephemeral volumes are told apart by them) and its access modes', () => {
    const pvc = pvcFromJson({
      metadata: { name: 'web-1-data', namespace: 'shop', ownerReferences: [{ uid: 'u1', kind: 'Pod', name: 'web-1', controller: true }] },
      spec: { volumeName: 'pv-1', accessModes: ['ReadWriteOnce'] },
      status: { phase: 'Bound' },
    });
    expect(pvc.metadata.ownerReferences).toEqual([{ uid: 'u1', kind: 'Pod', name: 'web-1', controller: true }]);
    expect(pvc.spec).toEqual({ volumeName: 'pv-1', accessModes: ['ReadWriteOnce'] });
  });

  it('a node keeps provider id, taints, annotations, the type and status of its conditions and its volume lists', () => {
    const node = nodeFromJson({
      metadata: { name: 'n1', annotations: { a: 'b' }, labels: { zone: 'a' } },
      spec: { providerID: 'aws:///us-east-1a/i-1', taints: [{ key: 'k', effect: 'NoSchedule' }], podCIDR: '10.0.0.0/24' },
      status: {
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
        volumesInUse: ['v'],
        volumesAttached: [{ name: 'v', devicePath: '' }],
        images: [{ names: ['web:1'], sizeBytes: 1 }],
      },
    });
    expect(node).toEqual({
      metadata: { name: 'n1', annotations: { a: 'b' } },
      spec: { providerID: 'aws:///us-east-1a/i-1', taints: [{ key: 'k', effect: 'NoSchedule' }] },
      status: { conditions: [{ type: 'Ready', status: 'True' }], volumesInUse: ['v'], volumesAttached: [{ name: 'v', devicePath: '' }] },
    });
  });

  it('a PV keeps its EBS source, claim, access modes and finalizers; a VolumeAttachment its source, status, annotations and finalizers', () => {
    const pv = pvFromJson({
      metadata: {
        name: 'pv-1',
        finalizers: ['kubernetes.io/pv-protection'],
        annotations: { 'pv.kubernetes.io/provisioned-by': 'ebs.csi.aws.com' },
      },
      spec: {
        csi: {
          driver: 'ebs.csi.aws.com',
          volumeHandle: 'vol-1',
          fsType: 'ext4',
          volumeAttributes: { 'storage.kubernetes.io/csiProvisionerIdentity': 'x' },
        },
        accessModes: ['ReadWriteOnce'],
        volumeMode: 'Filesystem',
        claimRef: { kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data-1', uid: 'c1', resourceVersion: '7' },
        capacity: { storage: '10Gi' },
        nodeAffinity: { required: { nodeSelectorTerms: [] } },
        storageClassName: 'gp3',
      },
      status: { phase: 'Bound' },
    });
    expect(pv).toEqual({
      metadata: { name: 'pv-1', finalizers: ['kubernetes.io/pv-protection'] },
      spec: {
        csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1', fsType: 'ext4' },
        accessModes: ['ReadWriteOnce'],
        volumeMode: 'Filesystem',
        claimRef: { namespace: 'shop', name: 'data-1', uid: 'c1' },
      },
      status: { phase: 'Bound' },
    });
    const va = volumeAttachmentFromJson({
      metadata: {
        name: 'csi-1',
        annotations: { 'csi.alpha.kubernetes.io/node-id': 'i-1' },
        finalizers: ['external-attacher/ebs-csi-aws-com'],
      },
      spec: { attacher: 'ebs.csi.aws.com', nodeName: 'n1', source: { persistentVolumeName: 'pv-1' } },
      status: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdba' } },
    });
    expect(va.metadata).toEqual({
      name: 'csi-1',
      annotations: { 'csi.alpha.kubernetes.io/node-id': 'i-1' },
      finalizers: ['external-attacher/ebs-csi-aws-com'],
    });
    expect(va.spec).toEqual({ attacher: 'ebs.csi.aws.com', nodeName: 'n1', source: { persistentVolumeName: 'pv-1' } });
    expect(va.status).toEqual({ attached: true, attachmentMetadata: { devicePath: '/dev/xvdba' } });
  });

  it('a PV source of another kind is not kept: the PV reads as not ours', () => {
    expect(
      pvFromJson({ metadata: { name: 'pv-nfs' }, spec: { nfs: { server: 'fs', path: '/' }, accessModes: ['ReadWriteMany'] } }).spec,
    ).toEqual({
      accessModes: ['ReadWriteMany'],
    });
  });

  it.each([
    ['a name that is not a string', { metadata: { name: 7 } }, (o: { metadata: object }) => o.metadata, {}],
    [
      'labels with a non-string value',
      { metadata: { name: 'a', labels: { x: 1 } } },
      (o: { metadata: object }) => o.metadata,
      { name: 'a' },
    ],
    ['volumes that are not a list', { metadata: {}, spec: { volumes: 'data' } }, (o: { spec?: object }) => o.spec, {}],
  ])('a field of the wrong type is left out, for the core to report the object: %s', (_, json, pick, expected) => {
    expect(pick(podFromJson(json) as never)).toEqual(expected);
  });

  it.each(Object.entries(mappers).flatMap(([kind, map]) => [null, 'text', 3, ['a']].map((value) => [kind, map, value] as const)))(
    'a %s that is not an object (%j) fails the read with a message naming the kind',
    (kind, map, value) => {
      expect(() => map(value)).toThrow(IncompleteReadError);
      expect(() => map(value)).toThrow(new RegExp(`^${kind}: expected an object`));
    },
  );

  it('a VolumeAttachment without spec fails the read, naming it', () => {
    expect(() => volumeAttachmentFromJson({ metadata: { name: 'csi-9' } })).toThrow('VolumeAttachment csi-9 has no spec');
  });
});
