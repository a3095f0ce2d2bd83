/** The invariant checkers the demo and the fault suite rely on: each row names the behaviour it proves. */
import { describe, expect, it } from 'vitest';
import { volumeAttachmentName } from '../../lambda/adapters/kubernetes/volume-attachment-name.js';
import type { DetachCall, Ec2Mutation } from '../../sandbox/oracle/calls.js';
import { checkConvergence, checkStep } from '../../sandbox/oracle/checks.js';
import type { Truth, TruthAttachment, TruthNode } from '../../sandbox/oracle/truth.js';

/** Volume ids must be real EBS ids: the checks find them in unique names. */
const V1 = 'vol-00000001';
const V9 = 'vol-00000009';
const uname = (v: string) => `kubernetes.io/csi/ebs.csi.aws.com^${v}`;
const node = (name: string, instanceId: string, o: Partial<TruthNode> = {}): TruthNode => ({
  name,
  instanceId,
  ready: true,
  outOfService: false,
  volumesInUse: [],
  volumesAttached: [],
  ...o,
});
const attached = (volumeId: string, instanceId: string, state: TruthAttachment['state'] = 'attached'): TruthAttachment => ({
  volumeId,
  instanceId,
  device: '/dev/xvdaa',
  state,
});
const needed = (volumeId: string, nodeName: string) => ({ volumeId, uniqueName: uname(volumeId), nodeName, pvName: `pv-${volumeId}` });

function truth(o: Partial<Truth> = {}): Truth {
  return {
    at: 0,
    attachments: [],
    instanceStates: new Map([
      ['i-a', 'running'],
      ['i-b', 'running'],
    ]),
    nodes: new Map([
      ['a', node('a', 'i-a')],
      ['b', node('b', 'i-b')],
    ]),
    exclusive: new Set([V1]),
    desired: [],
    volumeAttachments: [],
    ...o,
  };
}
const withNodes = (...nodes: TruthNode[]) => new Map(nodes.map((n) => [n.name, n]));
const detachFromA: DetachCall[] = [{ volumeId: V1, instanceId: 'i-a' }];
const invariants = (before: Truth, after: Truth, calls: DetachCall[] = []) =>
  checkStep({ before, after, detaches: calls }).map((v) => v.invariant);

describe('checkStep', () => {
  const mountedOnA = truth({
    attachments: [attached(V1, 'i-a')],
    nodes: withNodes(
      node('a', 'i-a', { volumesInUse: [uname(V1)], volumesAttached: [{ name: uname(V1), devicePath: '/dev/xvdaa' }] }),
      node('b', 'i-b'),
    ),
  });
  it.each([
    [
      'an RWO volume attached to two nodes breaks 1',
      truth({ attachments: [attached(V1, 'i-a'), attached(V1, 'i-b', 'attaching')] }),
      [],
      [1],
    ],
    ['a Multi-Attach (RWX) volume on two nodes is fine', truth({ attachments: [attached(V9, 'i-a'), attached(V9, 'i-b')] }), [], []],
    ['detaching a volume mounted on a Ready node breaks 2', mountedOnA, detachFromA, [2]],
    [
      'a detach on a NotReady node is allowed (the unmount timeout)',
      truth({ ...mountedOnA, nodes: withNodes(node('a', 'i-a', { ready: false, volumesInUse: [uname(V1)] })) }),
      detachFromA,
      [],
    ],
    [
      'a detach on an out-of-service node is allowed',
      truth({ ...mountedOnA, nodes: withNodes(node('a', 'i-a', { outOfService: true, volumesInUse: [uname(V1)] })) }),
      detachFromA,
      [],
    ],
    [
      'detaching an attached volume a pod on the node still needs breaks 3',
      truth({ attachments: [attached(V1, 'i-a')], desired: [needed(V1, 'a')] }),
      detachFromA,
      [3],
    ],
    [
      'detaching a stuck attach of a needed volume is allowed (retry from scratch)',
      truth({ attachments: [attached(V1, 'i-a', 'attaching')], desired: [needed(V1, 'a')] }),
      detachFromA,
      [],
    ],
    [
      'a node listing a volume EC2 has not attached there breaks 5',
      truth({ nodes: withNodes(node('a', 'i-a', { volumesAttached: [{ name: uname(V1), devicePath: '/dev/xvdaa' }] })) }),
      [],
      [5],
    ],
    [
      'a node listing a volume still attaching breaks 5',
      truth({
        attachments: [attached(V1, 'i-a', 'attaching')],
        nodes: withNodes(node('a', 'i-a', { volumesAttached: [{ name: uname(V1), devicePath: '/dev/xvdaa' }] })),
      }),
      [],
      [5],
    ],
    [
      "a terminated instance's stale list is not held against the controller",
      truth({
        instanceStates: new Map([['i-a', 'terminated']]),
        nodes: withNodes(node('a', 'i-a', { volumesAttached: [{ name: uname(V1), devicePath: '/dev/xvdaa' }] })),
      }),
      [],
      [],
    ],
  ] as [string, Truth, DetachCall[], number[]][])('%s', (_name, state, calls, expected) => {
    expect(invariants(state, state, calls)).toEqual(expected);
  });

  it('protects a mount only if it held both before and after the step (the kubelet moves between steps)', () => {
    const unmounted = truth({ ...mountedOnA, nodes: withNodes(node('a', 'i-a'), node('b', 'i-b')) });
    expect(invariants(mountedOnA, unmounted, detachFromA)).toEqual([]);
  });
});

describe('checkStep, invariant 6: attaches only on fresh ground', () => {
  const V2 = 'vol-00000002';
  const attach = (volumeId: string, instanceId: string, device = '/dev/xvdab'): Ec2Mutation => ({
    action: 'AttachVolume',
    volumeId,
    instanceId,
    device,
  });
  const detach = (volumeId: string, instanceId: string): Ec2Mutation => ({ action: 'DetachVolume', volumeId, instanceId });
  const onA = truth({ attachments: [attached(V1, 'i-a')] });
  it.each([
    ['an attach of a new volume on a free name', [attach(V2, 'i-a')], []],
    ['an AttachVolume for a pair EC2 already has attached breaks 6', [attach(V1, 'i-a')], [6]],
    ['an attach after a detach of the same pair in the step', [detach(V1, 'i-a'), attach(V1, 'i-a')], []],
    ['an attach of another volume on a name V1 holds on that instance breaks 6', [attach(V2, 'i-a', '/dev/xvdaa')], [6]],
    ['the same name on another instance', [attach(V2, 'i-b', '/dev/xvdaa')], []],
    ['the name once V1 has been detached', [detach(V1, 'i-a'), attach(V2, 'i-a', '/dev/xvdaa')], []],
  ] as [string, Ec2Mutation[], number[]][])('%s', (_name, mutations, expected) => {
    expect(checkStep({ before: onA, after: onA, mutations }).map((v) => v.invariant)).toEqual(expected);
  });
});

describe('checkConvergence', () => {
  const va = (v: string, n: string, devicePath = '/dev/xvdaa') => ({
    name: volumeAttachmentName(v, n),
    nodeName: n,
    attached: true,
    devicePath,
  });
  const settled = truth({
    attachments: [attached(V1, 'i-a')],
    desired: [needed(V1, 'a')],
    volumeAttachments: [va(V1, 'a')],
    nodes: withNodes(node('a', 'i-a', { volumesAttached: [{ name: uname(V1), devicePath: '/dev/xvdaa' }] }), node('b', 'i-b')),
  });
  it.each([
    ['desired equals actual and everything reports it', settled, 0],
    ['a needed volume not attached', truth({ desired: [needed(V1, 'a')] }), 1],
    ['an attachment nobody needs (leaked), unreported and without VolumeAttachment', truth({ attachments: [attached(V1, 'i-a')] }), 3],
    [
      'an attached volume missing from node status and without VolumeAttachment',
      truth({ attachments: [attached(V1, 'i-a')], desired: [needed(V1, 'a')] }),
      2,
    ],
    [
      'an RWO volume wanted on two nodes is converged when it is on one of them',
      truth({ ...settled, desired: [needed(V1, 'a'), needed(V1, 'b')] }),
      0,
    ],
  ] as [string, Truth, number][])('%s', (_name, state, problems) => {
    expect(checkConvergence(state)).toHaveLength(problems);
  });
});
