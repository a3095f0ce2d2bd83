import { describe, expect, it } from 'vitest';
import type { KubeVolumeAttachment } from '../../lambda/core/kube.js';
import { seedAll, takeoverSeeds, takeoverSteps, takeOverVolume } from '../../lambda/core/takeover.js';
import type { ActualAttachment, NodeView, VolumeObservation, VolumeRecord } from '../../lambda/core/types.js';
import { nodesByInstance } from '../../lambda/core/verification.js';
import { attachment, instanceOf, pv, record, T0, uname, va, view, vol } from './builders.js';

const V = vol(1);
const W = vol(2);
const nodesOf = (...views: NodeView[]) => new Map(views.map((v) => [v.name, v]));
const pvs = [pv('pv-v', { volumeId: V }), pv('pv-w', { volumeId: W })];
const fromNode = (volumeId: string, nodeName: string, device = '/dev/xvdaa') => ({
  volumeId,
  nodeName,
  instanceId: instanceOf(nodeName),
  device,
  reported: true,
});
const fromVa = (volumeId: string, nodeName: string, device?: string) => ({
  volumeId,
  nodeName,
  instanceId: instanceOf(nodeName),
  ...(device === undefined ? {} : { device }),
});

describe('takeoverSeeds: what the cluster claims is attached, by volume', () => {
  it.each<[string, NodeView[], KubeVolumeAttachment[], [string, object[]][]]>([
    [
      "a managed node's reported volume (CSI name)",
      [view('node-a', { attached: [{ name: uname(V), devicePath: '/dev/xvdaa' }] })],
      [],
      [[V, [fromNode(V, 'node-a')]]],
    ],
    [
      "a managed node's reported volume (in-tree name)",
      [view('node-a', { attached: [{ name: `kubernetes.io/aws-ebs/${V}`, devicePath: '/dev/xvdab' }] })],
      [],
      [[V, [fromNode(V, 'node-a', '/dev/xvdab')]]],
    ],
    [
      "an unmanaged node's list is not ours",
      [view('node-a', { managed: false, attached: [{ name: uname(V), devicePath: '/dev/xvdaa' }] })],
      [],
      [],
    ],
    [
      'a node without an instance id cannot hold a seed',
      [view('node-a', { instanceId: null, attached: [{ name: uname(V), devicePath: '/dev/xvdaa' }] })],
      [],
      [],
    ],
    [
      "another driver's entry is skipped",
      [view('node-a', { attached: [{ name: 'kubernetes.io/csi/efs.csi.aws.com^fs-1', devicePath: '' }] })],
      [],
      [],
    ],
    [
      'an attached VolumeAttachment through its PV',
      [view('node-a')],
      [va('node-a', { pv: 'pv-v', attached: true, devicePath: '/dev/xvdac' })],
      [[V, [fromVa(V, 'node-a', '/dev/xvdac')]]],
    ],
    [
      'an attached inline VolumeAttachment, aws://<zone>/ handle',
      [view('node-a')],
      [va('node-a', { inline: { volumeHandle: `aws://us-east-1a/${W}` }, attached: true })],
      [[W, [fromVa(W, 'node-a')]]],
    ],
    [
      'a VolumeAttachment not (yet) attached',
      [view('node-a')],
      [va('node-a', { pv: 'pv-v', attached: false }), va('node-a', { pv: 'pv-w' })],
      [],
    ],
    [
      "another attacher's VolumeAttachment",
      [view('node-a')],
      [va('node-a', { pv: 'pv-v', attacher: 'efs.csi.aws.com', attached: true })],
      [],
    ],
    [
      'an inline spec of another driver',
      [view('node-a')],
      [va('node-a', { inline: { volumeHandle: V, driver: 'efs.csi.aws.com' }, attached: true })],
      [],
    ],
    ['a VolumeAttachment on an unknown node', [view('node-a')], [va('node-z', { pv: 'pv-v', attached: true })], []],
    [
      'node reports come first, VolumeAttachments after, grouped by volume',
      [view('node-a', { attached: [{ name: uname(V), devicePath: '/dev/xvdaa' }] }), view('node-b')],
      [va('node-b', { pv: 'pv-w', attached: true }), va('node-a', { pv: 'pv-v', attached: true, devicePath: '/dev/xvdaa' })],
      [
        [V, [fromNode(V, 'node-a'), fromVa(V, 'node-a', '/dev/xvdaa')]],
        [W, [fromVa(W, 'node-b')]],
      ],
    ],
  ])('%s', (_name, views, volumeAttachments, expected) => {
    expect([...takeoverSeeds(nodesOf(...views), { pvs, volumeAttachments })]).toEqual(expected);
  });
});

describe('takeoverSteps: the claimed volumes still to take over, in id order, a step at a time', () => {
  const ids = [vol(5), vol(1), vol(4), vol(2), vol(3)];
  it.each<[string, string | undefined, number, string[][]]>([
    ['nothing done yet: every claim, sorted', undefined, 2, [[vol(1), vol(2)], [vol(3), vol(4)], [vol(5)]]],
    ['after an earlier invocation: only ids past `through`', vol(2), 2, [[vol(3), vol(4)], [vol(5)]]],
    ['everything done: no step', vol(5), 2, []],
    ['one step holds all when it is large enough', undefined, 500, [[vol(1), vol(2), vol(3), vol(4), vol(5)]]],
  ])('%s', (_case, through, size, expected) => {
    expect(takeoverSteps(ids, through, size)).toEqual(expected);
  });
});

describe('takeOverVolume: one write seeds the claims, settles them with EC2 and marks them mounted', () => {
  const nodes = nodesOf(view('node-a', { inUse: [V] }), view('node-b'));
  const takeoverView = { nodes, adoptable: () => nodesByInstance({ nodes, decidedBy: { kind: 'pods' } }) };
  const claimOn = (nodeName: string) => fromNode(V, nodeName);
  const ec2Shows = (...on: string[]): VolumeObservation => ({
    volumeId: V,
    exists: true,
    attachments: on.map((n) => ({ instanceId: instanceOf(n), state: 'attached' as const, device: '/dev/xvdaa' })),
  });
  const entry = (nodeName: string, o: Partial<ActualAttachment> = {}) => ({ ...attachment(nodeName, { since: T0 }), ...o });

  it.each<[string, VolumeRecord | undefined, string[], VolumeObservation | undefined, Record<string, ActualAttachment>]>([
    [
      'a claim EC2 confirms: attached, mounted as the node says',
      undefined,
      ['node-a'],
      ec2Shows('node-a'),
      { 'node-a': entry('node-a', { mounted: true }) },
    ],
    [
      'a claim on a node that mounts nothing: attached, not mounted',
      undefined,
      ['node-b'],
      ec2Shows('node-b'),
      { 'node-b': entry('node-b') },
    ],
    ['a claim EC2 refutes: nothing left', undefined, ['node-a'], ec2Shows(), {}],
    [
      'EC2 silent about the volume: the claim stays uncertain',
      undefined,
      ['node-a'],
      undefined,
      { 'node-a': entry('node-a', { state: 'uncertain', mounted: false }) },
    ],
    [
      'an entry on record wins over the claim',
      record(V, [attachment('node-a', { device: '/dev/xvdab', state: 'attaching', since: T0 - 1 })]),
      ['node-a'],
      undefined,
      { 'node-a': attachment('node-a', { device: '/dev/xvdab', state: 'attaching', since: T0 - 1 }) },
    ],
  ])('%s', (_case, stored, claims, observation, expected) => {
    const taken = takeOverVolume(stored, claims.map(claimOn), observation, T0, takeoverView);
    expect(taken.ok && taken.record.attachments).toEqual(expected);
  });

  it('changes nothing (the same record, so no write) when a step is done again on what it wrote', () => {
    const first = takeOverVolume(undefined, [claimOn('node-a')], ec2Shows('node-a'), T0, takeoverView);
    if (!first.ok) throw new Error(first.reason);
    const again = takeOverVolume(first.record, [claimOn('node-a')], ec2Shows('node-a'), T0 + 1, takeoverView);
    expect(again.ok && again.record).toBe(first.record);
  });

  it("refuses EC2's word about another volume", () => {
    expect(takeOverVolume(undefined, [claimOn('node-a')], { ...ec2Shows('node-a'), volumeId: W }, T0, takeoverView)).toMatchObject({
      ok: false,
      refused: 'wrong-target',
    });
  });

  it('seedAll refuses when there is no claim and no record', () => {
    expect(seedAll(undefined, [], T0)).toMatchObject({ ok: false });
  });
});
