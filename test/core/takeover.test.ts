import { describe, expect, it } from 'vitest';
import type { KubeVolumeAttachment } from '../../lambda/core/kube.js';
import { takeoverSeeds } from '../../lambda/core/takeover.js';
import type { NodeView } from '../../lambda/core/types.js';
import { instanceOf, pv, uname, va, view, vol } from './builders.js';

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
