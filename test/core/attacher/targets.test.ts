/**
 * Which VolumeAttachments are ours and what each asks for (external-attacher csi_handler.go):
 * one row per rule of volume and instance resolution.
 */
import { describe, expect, it } from 'vitest';
import { attacherTargets } from '../../../lambda/core/attacher/targets.js';
import { instanceOf, node, pv, T0, vol } from '../builders.js';
import { csiNode, kcmVa, view } from './builders.js';

const V = vol(1);

describe('attacherTargets: what each VolumeAttachment asks for', () => {
  it.each([
    ['a CSI PV on a registered node', view(), { volumeId: V, pvName: 'pv-data', instanceId: instanceOf('node-a') }],
    [
      'an in-tree PV, translated to the bare id',
      view({ pvs: [pv('pv-data', { source: 'in-tree', volumeId: `aws://us-east-1a/${V}` })] }),
      { volumeId: V },
    ],
    [
      'an inline CSI spec',
      view({ volumeAttachments: [kcmVa('node-a', { inline: { volumeHandle: V } })] }),
      { volumeId: V, instanceId: instanceOf('node-a') },
    ],
    ['a PV that does not exist', view({ pvs: [] }), { error: 'VolumeAttachment csi-pv-data-node-a names PV pv-data, which was not found' }],
    [
      'both a PV and an inline spec',
      view({ volumeAttachments: [kcmVa('node-a', { pv: 'pv-data', inline: { volumeHandle: V } })] }),
      { error: expect.stringContaining('both') as string },
    ],
    [
      'neither a PV nor an inline spec',
      view({ volumeAttachments: [{ ...kcmVa('node-a'), spec: { attacher: 'ebs.csi.aws.com', nodeName: 'node-a', source: {} } }] }),
      { error: expect.stringContaining('neither') as string },
    ],
    [
      'a PV of another driver',
      view({ pvs: [pv('pv-data', { source: 'other-csi' })] }),
      { error: expect.stringContaining('not an EBS volume') as string },
    ],
    [
      'a PV being deleted (attach refused)',
      view({ pvs: [{ ...pv('pv-data'), metadata: { name: 'pv-data', deletionTimestamp: new Date(T0) } }] }),
      { error: 'PersistentVolume pv-data is marked for deletion' },
    ],
    ['no CSINode for the node', view({ csiNodes: [] }), { volumeId: V, error: 'CSINode node-a has no ebs.csi.aws.com driver registered' }],
    [
      'a non-EC2 nodeID (HyperPod)',
      view({ csiNodes: [csiNode('node-a', 'hyperpod-i-0abc')] }),
      { error: expect.stringContaining('"hyperpod-i-0abc", which is not an EC2 instance id') as string },
    ],
    [
      'a providerID naming another instance',
      view({ nodes: [node('node-a', { providerID: `aws:///us-east-1a/${instanceOf('other')}` })] }),
      { error: expect.stringContaining('providerID names') as string },
    ],
    ['a node object that is gone (the CSINode alone decides)', view({ nodes: [] }), { instanceId: instanceOf('node-a') }],
    [
      'a ReadWriteMany block PV (io2 Multi-Attach): accepted',
      view({ pvs: [pv('pv-data', { modes: ['ReadWriteMany'], volumeMode: 'Block' })] }),
      { volumeId: V, instanceId: instanceOf('node-a'), accessModes: ['ReadWriteMany'] },
    ],
    [
      "a ReadWriteMany filesystem PV: the driver's refusal, InvalidArgument",
      view({ pvs: [pv('pv-data', { modes: ['ReadWriteMany'], volumeMode: 'Filesystem' })] }),
      { volumeId: V, error: 'rpc error: code = InvalidArgument desc = Volume capability not supported', errorCode: 3 },
    ],
    [
      "a ReadOnlyMany PV: the driver's refusal",
      view({ pvs: [pv('pv-data', { modes: ['ReadOnlyMany'], volumeMode: 'Block' })] }),
      { error: 'rpc error: code = InvalidArgument desc = Volume capability not supported', errorCode: 3 },
    ],
    [
      "ReadOnlyMany with ReadWriteOnce: external-attacher's own refusal, no code",
      view({ pvs: [pv('pv-data', { modes: ['ReadWriteOnce', 'ReadOnlyMany'] })] }),
      { error: 'CSI does not support ReadOnlyMany and ReadWriteOnce on the same PersistentVolume' },
    ],
  ])('%s', (_, world, expected) => {
    const [target] = attacherTargets(world);
    expect(target).toMatchObject(expected);
  });

  it('a deleting VolumeAttachment of a refused capability is still detached (only attaches are refused)', () => {
    const world = view({
      pvs: [pv('pv-data', { modes: ['ReadOnlyMany'] })],
      volumeAttachments: [kcmVa('node-a', { deleting: true, claimed: true })],
    });
    expect(attacherTargets(world)[0]).toMatchObject({ volumeId: V, instanceId: instanceOf('node-a') });
    expect(attacherTargets(world)[0]?.error).toBeUndefined();
  });

  it('leaves VolumeAttachments of other attachers (EKS Auto Mode) alone', () => {
    expect(attacherTargets(view({ volumeAttachments: [kcmVa('node-a', { attacher: 'ebs.csi.eks.amazonaws.com' })] }))).toEqual([]);
  });

  it.each([
    [
      'the CSINode when it is there',
      view({ volumeAttachments: [kcmVa('node-a', { deleting: true, claimed: true, annotated: instanceOf('old') })] }),
      { instanceId: instanceOf('node-a') },
    ],
    [
      'the annotation when the CSINode is gone',
      view({ csiNodes: [], volumeAttachments: [kcmVa('node-a', { deleting: true, claimed: true, annotated: instanceOf('old') })] }),
      { instanceId: instanceOf('old') },
    ],
    [
      'the annotation when the driver entry is gone',
      view({ csiNodes: [csiNode('node-a', null)], volumeAttachments: [kcmVa('node-a', { deleting: true, claimed: true })] }),
      { instanceId: instanceOf('node-a') },
    ],
    [
      'an error when neither is there',
      view({ csiNodes: [], volumeAttachments: [kcmVa('node-a', { deleting: true })] }),
      { error: expect.stringContaining('no csi.alpha.kubernetes.io/node-id') as string },
    ],
    [
      'an error when the annotation is not an instance id',
      view({ csiNodes: [], volumeAttachments: [kcmVa('node-a', { deleting: true, annotated: 'hyperpod-x' })] }),
      { error: expect.stringContaining('not an EC2 instance id') as string },
    ],
    [
      'a PV being deleted does not stop a detach',
      view({
        pvs: [{ ...pv('pv-data'), metadata: { name: 'pv-data', deletionTimestamp: new Date(T0) } }],
        volumeAttachments: [kcmVa('node-a', { deleting: true, claimed: true })],
      }),
      { instanceId: instanceOf('node-a'), deleting: true, finalized: true },
    ],
  ])('a detach finds its instance from %s', (_, world, expected) => {
    const [target] = attacherTargets(world);
    expect(target).toMatchObject(expected);
  });
});
