/**
 * Attacher mode's checkers (sandbox/oracle/attacher) each fire on a history that breaks their
 * invariant and stay quiet on the nearest one that does not; and the VolumeAttachments are read
 * from the objects as the API server holds them.
 */
import { describe, expect, it } from 'vitest';
import { ATTACHER_FINALIZER, NODE_ID_ANNOTATION } from '../../lambda/core/attacher/names.js';
import { detachUnderLiveVa, finalizerReleasedEarly, vaOverclaims } from '../../sandbox/oracle/attacher/checks.js';
import { callBesideForeignLease, leaseSight } from '../../sandbox/oracle/attacher/lease-bound.js';
import { exclusiveOnceA5 } from '../../sandbox/oracle/attacher/live.js';
import { readVaFacts, type VaFact, type VaSide } from '../../sandbox/oracle/attacher/truth.js';
import type { AttachmentStateName } from '../../sandbox/ec2/state/lifecycle.js';
import type { Truth, TruthAttachment } from '../../sandbox/oracle/truth.js';

const V1 = 'vol-00000001';

const va = (o: Partial<VaFact> = {}): VaFact => ({
  name: 'csi-a',
  nodeName: 'a',
  volumeId: V1,
  deleting: false,
  finalized: true,
  attached: true,
  nodeInstance: 'i-a',
  instances: ['i-a'],
  ...o,
});

const on = (instanceId: string, state: AttachmentStateName = 'attached'): TruthAttachment => ({
  volumeId: V1,
  instanceId,
  device: '/dev/xvdaa',
  state,
});

function truth(attachments: TruthAttachment[], o: Partial<Truth> = {}): Truth {
  return {
    at: 0,
    attachments,
    instanceStates: new Map([
      ['i-a', 'running'],
      ['i-b', 'running'],
      ['i-stopped', 'stopped'],
    ]),
    nodes: new Map(),
    exclusive: new Set([V1]),
    desired: [],
    volumeAttachments: [],
    ...o,
  };
}

describe('A1: a live VolumeAttachment says attached only where EC2 has the volume attached', () => {
  it.each([
    { name: 'EC2 has it attached on the node instance', ec2: [on('i-a')], fact: va(), fires: false },
    { name: 'EC2 has it nowhere', ec2: [], fact: va(), fires: true },
    { name: 'EC2 has it still attaching', ec2: [on('i-a', 'attaching')], fact: va(), fires: true },
    { name: 'EC2 has it detaching', ec2: [on('i-a', 'detaching')], fact: va(), fires: true },
    { name: 'EC2 has it on another instance only', ec2: [on('i-b')], fact: va(), fires: true },
    { name: 'the object says attached: false', ec2: [], fact: va({ attached: false }), fires: false },
    { name: 'kcm is deleting the object (its pods are gone)', ec2: [], fact: va({ deleting: true }), fires: false },
    { name: "the node's machine is stopped (stale by itself)", ec2: [], fact: va({ nodeInstance: 'i-stopped' }), fires: false },
  ])('$name → fires: $fires', ({ ec2, fact, fires }) => {
    expect(vaOverclaims(truth(ec2), [fact]).map((v) => v.invariant)).toEqual(fires ? ['A1'] : []);
  });
});

describe('A2: no DetachVolume of a pair a live VolumeAttachment asks for', () => {
  it.each([
    { name: 'a live object asks for the attached pair', ec2: [on('i-a')], vas: [va()], fires: true },
    {
      name: 'the live object names the instance only by our annotation',
      ec2: [on('i-a')],
      vas: [va({ nodeInstance: 'i-b', instances: ['i-b', 'i-a'] })],
      fires: true,
    },
    { name: 'kcm deleted the object (released)', ec2: [on('i-a')], vas: [va({ deleting: true })], fires: false },
    {
      name: 'the live object is on another instance',
      ec2: [on('i-a')],
      vas: [va({ nodeInstance: 'i-b', instances: ['i-b'] })],
      fires: false,
    },
    { name: 'the live object is for another volume', ec2: [on('i-a')], vas: [va({ volumeId: 'vol-other' })], fires: false },
    { name: 'a stuck attach is detached to retry (never usable)', ec2: [on('i-a', 'attaching')], vas: [va()], fires: false },
    { name: 'no object at all', ec2: [on('i-a')], vas: [], fires: false },
    {
      name: 'the machine is stopped (no OS can use it)',
      ec2: [on('i-stopped')],
      vas: [va({ instances: ['i-stopped'] })],
      instance: 'i-stopped',
      fires: false,
    },
  ])('$name → fires: $fires', ({ ec2, vas, instance, fires }) => {
    expect(detachUnderLiveVa(truth(ec2), vas, V1, instance ?? 'i-a').map((v) => v.invariant)).toEqual(fires ? ['A2'] : []);
  });
});

describe('A3: our finalizer goes only once EC2 holds the volume on none of the instances the object stood for', () => {
  const released = va({ deleting: true, finalized: false });
  it.each([
    { name: 'EC2 has let go', ec2: [], after: released, fires: false },
    { name: 'EC2 still has it attached', ec2: [on('i-a')], after: released, fires: true },
    { name: 'EC2 is still detaching it', ec2: [on('i-a', 'detaching')], after: released, fires: true },
    { name: 'EC2 detach is stuck busy', ec2: [on('i-a', 'busy')], after: released, fires: true },
    { name: 'an attach is still landing', ec2: [on('i-a', 'attaching')], after: released, fires: true },
    { name: 'the object is gone while EC2 still has it', ec2: [on('i-a')], after: undefined, fires: true },
    { name: 'the finalizer is still there', ec2: [on('i-a')], after: va({ deleting: true }), fires: false },
    { name: 'EC2 has it only on an instance the object never stood for', ec2: [on('i-b')], after: released, fires: false },
  ])('$name → fires: $fires', ({ ec2, after, fires }) => {
    expect(finalizerReleasedEarly(truth(ec2), va({ deleting: true }), after).map((v) => v.invariant)).toEqual(fires ? ['A3'] : []);
  });

  it('says nothing about an object that never carried our finalizer', () => {
    expect(finalizerReleasedEarly(truth([on('i-a')]), va({ finalized: false }), undefined)).toEqual([]);
  });
});

describe('A5: an exclusive volume on two instances', () => {
  it.each([
    { name: 'attached to two instances', ec2: [on('i-a'), on('i-b', 'attaching')], fires: true },
    { name: 'attached to one', ec2: [on('i-a')], fires: false },
  ])('$name → fires: $fires', ({ ec2, fires }) => {
    expect(exclusiveOnceA5(truth(ec2)).map((v) => v.invariant)).toEqual(fires ? ['A5'] : []);
  });
});

describe("A6: an EC2 mutating call beside another holder's Lease", () => {
  const bound = { ours: 'ebs-attach-detach/local', boundMs: 5_000 };
  const T = Date.parse('2026-03-02T09:00:00Z');
  it.each([
    { name: 'the sidecar has held it for the bound', lease: { holderIdentity: 'sidecar', acquireTime: T }, at: T + 5_000, fires: true },
    {
      name: 'the sidecar took it less than the bound ago',
      lease: { holderIdentity: 'sidecar', acquireTime: T },
      at: T + 4_999,
      fires: false,
    },
    { name: 'we hold it', lease: { holderIdentity: bound.ours, acquireTime: T }, at: T + 60_000, fires: false },
    { name: 'nobody holds it (released)', lease: { holderIdentity: '', acquireTime: T }, at: T + 60_000, fires: false },
    { name: 'there is no Lease', lease: undefined, at: T, fires: false },
  ])('$name → fires: $fires', ({ lease, at, fires }) => {
    expect(callBesideForeignLease(lease, bound, at, 'AttachVolume vol-1').map((v) => v.invariant)).toEqual(fires ? ['A6'] : []);
  });

  it('reads the Lease as the API server stores it (MicroTime with six fraction digits)', () => {
    expect(leaseSight({ spec: { holderIdentity: 'sidecar', acquireTime: '2026-03-02T09:00:00.000000Z' } })).toEqual({
      holderIdentity: 'sidecar',
      acquireTime: T,
    });
  });
});

describe('reading the VolumeAttachments', () => {
  const objects: Record<string, unknown[]> = {
    PersistentVolume: [{ metadata: { name: 'pv-1' }, spec: { csi: { driver: 'ebs.csi.aws.com', volumeHandle: V1 } } }],
    Node: [{ metadata: { name: 'a' }, spec: { providerID: 'aws:///us-east-1a/i-a' } }],
    CSINode: [{ metadata: { name: 'a' }, spec: { drivers: [{ name: 'ebs.csi.aws.com', nodeID: 'i-a' }] } }],
    VolumeAttachment: [
      {
        metadata: {
          name: 'csi-pv',
          finalizers: [ATTACHER_FINALIZER],
          annotations: { [NODE_ID_ANNOTATION]: 'i-old' },
          deletionTimestamp: '2026-03-02T09:00:00Z',
        },
        spec: { attacher: 'ebs.csi.aws.com', nodeName: 'a', source: { persistentVolumeName: 'pv-1' } },
        status: { attached: true },
      },
      {
        metadata: { name: 'csi-inline' },
        spec: { attacher: 'ebs.csi.aws.com', nodeName: 'gone', source: { inlineVolumeSpec: { csi: { volumeHandle: 'vol-inline' } } } },
      },
      { metadata: { name: 'auto-mode' }, spec: { attacher: 'ebs.csi.eks.amazonaws.com', nodeName: 'a', source: {} } },
    ],
  };
  const kube: VaSide = { list: ((kind: string) => objects[kind] ?? []) as VaSide['list'] };

  it('resolves volume, marks and every instance an object may stand for; other attachers are not ours', () => {
    expect(readVaFacts(kube)).toEqual([
      va({ name: 'csi-pv', deleting: true, instances: ['i-a', 'i-old'] }),
      va({
        name: 'csi-inline',
        nodeName: 'gone',
        volumeId: 'vol-inline',
        finalized: false,
        attached: false,
        nodeInstance: undefined,
        instances: [],
      }),
    ]);
  });
});
