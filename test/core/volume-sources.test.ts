import { describe, expect, it } from 'vitest';
import type { KubePv } from '../../lambda/core/kube.js';
import {
  pvLookup,
  pvNamesByVolume,
  volumeOfInline,
  volumeOfNodeStatusName,
  volumeOfPv,
  volumeOfVolumeAttachment,
} from '../../lambda/core/volume-sources.js';
import { pv, uname, va, vol } from './builders.js';

const V = vol(1);
const invalid = (raw: string) => ({ kind: 'invalid', raw, error: expect.stringContaining(JSON.stringify(raw)) as string });

describe('volumeOfPv', () => {
  it.each<[string, KubePv, object]>([
    ['an EBS CSI PV names its volumeHandle', pv('pv-a', { volumeId: V }), { kind: 'ebs', volumeId: V }],
    [
      'an EBS CSI handle in the aws://<zone>/ form is the bare id',
      pv('pv-a', { volumeId: `aws://us-east-1a/${V}` }),
      { kind: 'ebs', volumeId: V },
    ],
    [
      'an in-tree awsElasticBlockStore PV is translated',
      pv('pv-a', { source: 'in-tree', volumeId: 'aws://us-east-1a/vol-0123abcd' }),
      { kind: 'ebs', volumeId: 'vol-0123abcd' },
    ],
    ['an invalid CSI handle says what was written', pv('pv-a', { volumeId: 'vol-bogus' }), invalid('vol-bogus')],
    ['an invalid in-tree id says what was written', pv('pv-a', { source: 'in-tree', volumeId: 'aws://zone/x' }), invalid('aws://zone/x')],
    ['another CSI driver is not ours', pv('pv-a', { source: 'other-csi' }), { kind: 'not-ours' }],
    ['an NFS PV is not ours', pv('pv-a', { source: 'nfs' }), { kind: 'not-ours' }],
    ['a PV without spec is not ours', { metadata: { name: 'pv-a' } }, { kind: 'not-ours' }],
  ])('%s', (_name, input, expected) => {
    expect(volumeOfPv(input)).toEqual(expected);
  });
});

describe('volumeOfInline', () => {
  it.each([
    ['a bare id', V, { kind: 'ebs', volumeId: V }],
    ['an aws://<zone>/ id', `aws://us-east-1a/${V}`, { kind: 'ebs', volumeId: V }],
    ['an invalid id', 'my-disk', invalid('my-disk')],
  ])('%s', (_name, volumeID, expected) => {
    expect(volumeOfInline({ volumeID })).toEqual(expected);
  });
});

describe('volumeOfVolumeAttachment', () => {
  const pvs = pvLookup([pv('pv-a', { volumeId: V }), pv('pv-nfs', { source: 'nfs' }), pv('pv-bad', { volumeId: 'vol-bad' })]);
  it.each([
    ['through its PV', va('n', { pv: 'pv-a' }), { kind: 'ebs', volumeId: V }],
    ['an inline EBS CSI spec', va('n', { inline: { volumeHandle: V } }), { kind: 'ebs', volumeId: V }],
    [
      'an inline handle in the aws://<zone>/ form is the bare id',
      va('n', { inline: { volumeHandle: `aws://us-east-1a/${V}` } }),
      { kind: 'ebs', volumeId: V },
    ],
    ['an invalid inline handle', va('n', { inline: { volumeHandle: 'vol-bogus' } }), invalid('vol-bogus')],
    ['an invalid PV handle', va('n', { pv: 'pv-bad' }), invalid('vol-bad')],
    ['another attacher is not ours', va('n', { pv: 'pv-a', attacher: 'efs.csi.aws.com' }), { kind: 'not-ours' }],
    ['a PV that is not EBS is not ours', va('n', { pv: 'pv-nfs' }), { kind: 'not-ours' }],
  ])('%s', (_name, input, expected) => {
    expect(volumeOfVolumeAttachment(input, pvs)).toEqual(expected);
  });

  it.each([
    [
      'an inline spec of another driver',
      va('n', { inline: { volumeHandle: 'fs-1234', driver: 'efs.csi.aws.com' } }),
      /without driver ebs.csi.aws.com/,
    ],
    [
      'an inline spec without csi',
      { ...va('n'), spec: { attacher: 'ebs.csi.aws.com', nodeName: 'n', source: { inlineVolumeSpec: {} } } },
      /without driver/,
    ],
    ['both a PV and an inline spec', va('n', { pv: 'pv-a', inline: { volumeHandle: V } }), /both a PV and an inline volume spec/],
    ['neither a PV nor an inline spec', va('n'), /neither a PV nor an inline volume spec/],
    ['a PV that was not found', va('n', { pv: 'pv-gone' }), /names PV pv-gone, which was not found/],
    ['a nameless object naming neither', { ...va('n'), metadata: {} }, /^VolumeAttachment {2}names neither/],
  ])('%s is invalid', (_name, input, error) => {
    expect(volumeOfVolumeAttachment(input, pvs)).toEqual({ kind: 'invalid', error: expect.stringMatching(error) as string });
  });
});

describe('volumeOfNodeStatusName', () => {
  it.each([
    ['the CSI unique name', uname(V), V],
    ['the in-tree plugin name', `kubernetes.io/aws-ebs/${V}`, V],
    ['the in-tree plugin name with an aws://<zone>/ id', `kubernetes.io/aws-ebs/aws://us-east-1a/${V}`, V],
    ['an in-tree name with an invalid id', 'kubernetes.io/aws-ebs/disk-1', undefined],
    ["another driver's unique name", 'kubernetes.io/csi/efs.csi.aws.com^fs-1234', undefined],
    ['a bare volume id (not a unique name)', V, undefined],
  ])('%s', (_name, name, expected) => {
    expect(volumeOfNodeStatusName(name)).toBe(expected);
  });
});

describe('pvNamesByVolume', () => {
  it('maps each EBS volume to its PV, skipping other, invalid and nameless PVs', () => {
    const nameless: KubePv = { ...pv('x', { volumeId: vol(4) }), metadata: {} };
    const names = pvNamesByVolume([
      pv('pv-a', { volumeId: V }),
      pv('pv-b', { source: 'in-tree', volumeId: vol(2) }),
      pv('pv-nfs', { source: 'nfs' }),
      pv('pv-bad', { volumeId: 'vol-bad' }),
      nameless,
    ]);
    expect(names).toEqual(
      new Map([
        [V, 'pv-a'],
        [vol(2), 'pv-b'],
      ]),
    );
    expect(pvLookup([nameless])('')).toBe(nameless);
  });
});
