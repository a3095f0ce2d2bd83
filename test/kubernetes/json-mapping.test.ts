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
  it('a pod keeps what the core reads: name, node, every field of its volumes, container states; timestamps stay strings', () => {
    const pod = podFromJson({
      metadata: { name: 'web-1', namespace: 'shop', uid: 'u1', deletionTimestamp: '2026-01-01T00:00:00Z', managedFields: [{}] },
      spec: { nodeName: 'node-1', volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-1' }, csi: { driver: 'x' } }] },
      status: { phase: 'Running', containerStatuses: [{ name: 'c', state: { running: {} } }], podIP: '10.0.0.1' },
    });
    expect(pod).toEqual({
      metadata: { name: 'web-1', namespace: 'shop', uid: 'u1', deletionTimestamp: '2026-01-01T00:00:00Z' },
      spec: { nodeName: 'node-1', volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-1' }, csi: { driver: 'x' } }] },
      status: { phase: 'Running', containerStatuses: [{ name: 'c', state: { running: {} } }] },
    });
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

  it('a node keeps provider id, taints, conditions and its volume lists', () => {
    const node = nodeFromJson({
      metadata: { name: 'n1', annotations: { a: 'b' } },
      spec: { providerID: 'aws:///us-east-1a/i-1', taints: [{ key: 'k', effect: 'NoSchedule' }] },
      status: { conditions: [{ type: 'Ready', status: 'True' }], volumesInUse: ['v'], volumesAttached: [{ name: 'v', devicePath: '' }] },
    });
    expect(node.spec).toEqual({ providerID: 'aws:///us-east-1a/i-1', taints: [{ key: 'k', effect: 'NoSchedule' }] });
    expect(node.status?.volumesAttached).toEqual([{ name: 'v', devicePath: '' }]);
    expect(node.metadata.annotations).toEqual({ a: 'b' });
  });

  it('a PV keeps its whole spec; a VolumeAttachment its source and status', () => {
    const spec = { csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' }, accessModes: ['ReadWriteOnce'], nodeAffinity: {} };
    expect(pvFromJson({ metadata: { name: 'pv-1' }, spec, status: { phase: 'Bound' } })).toEqual({
      metadata: { name: 'pv-1' },
      spec,
      status: { phase: 'Bound' },
    });
    const va = volumeAttachmentFromJson({
      metadata: { name: 'csi-1' },
      spec: { attacher: 'ebs.csi.aws.com', nodeName: 'n1', source: { persistentVolumeName: 'pv-1' } },
      status: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdba' } },
    });
    expect(va.spec).toEqual({ attacher: 'ebs.csi.aws.com', nodeName: 'n1', source: { persistentVolumeName: 'pv-1' } });
    expect(va.status).toEqual({ attached: true, attachmentMetadata: { devicePath: '/dev/xvdba' } });
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
