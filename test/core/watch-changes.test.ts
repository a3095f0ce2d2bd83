/** Controller mode's watch rules: which pod and node changes ask for which pass, from the object alone. */
import { describe, expect, it } from 'vitest';
import { nodeAsks, podAsks, type PodAsks, type WatchedChange } from '../../lambda/core/watch-changes.js';
import type { KubeNode, KubePod } from '../../lambda/core/kube.js';
import { node, pod, uname, vol } from './builders.js';

const attachedV1 = [{ name: uname(vol(1)), devicePath: '' }];

describe('pods', () => {
  it.each<[string, WatchedChange, KubePod, PodAsks]>([
    [
      'scheduled and pending: its own pass (attach)',
      'modified',
      pod('db-0', { claims: ['data'], phase: 'Pending' }),
      { pass: 'pod', nodeName: 'node-a' },
    ],
    [
      'created already bound to a node: its own pass',
      'added',
      pod('db-0', { claims: ['data'], phase: 'Pending' }),
      { pass: 'pod', nodeName: 'node-a' },
    ],
    ['running: settled, nothing', 'modified', pod('db-0', { claims: ['data'] }), undefined],
    ['not scheduled yet: nothing to attach', 'added', pod('db-0', { claims: ['data'], node: null, phase: 'Pending' }), undefined],
    ['no claim and no EBS volume: never', 'modified', pod('web-0', { phase: 'Pending' }), undefined],
    [
      'an inline EBS volume counts',
      'added',
      pod('web-0', { inline: [{ name: 'v', volumeID: vol(1) }], phase: 'Pending' }),
      { pass: 'pod', nodeName: 'node-a' },
    ],
    [
      'a generic ephemeral volume counts',
      'added',
      pod('web-0', { ephemeral: ['scratch'], phase: 'Pending' }),
      { pass: 'pod', nodeName: 'node-a' },
    ],
    [
      'terminating: its node may detach once unmounted',
      'modified',
      pod('db-0', { claims: ['data'], deleting: true }),
      { pass: 'node', nodeName: 'node-a' },
    ],
    ['succeeded: its node', 'modified', pod('job-0', { claims: ['data'], phase: 'Succeeded' }), { pass: 'node', nodeName: 'node-a' }],
    ['gone: its node', 'deleted', pod('db-0', { claims: ['data'] }), { pass: 'node', nodeName: 'node-a' }],
  ])('%s', (_name, change, object, asks) => {
    expect(podAsks(change, object)).toEqual(asks);
  });
});

describe('nodes', () => {
  it.each<[string, WatchedChange, KubeNode, boolean]>([
    ['every attached volume in use: settled', 'modified', node('node-a', { inUse: [vol(1)], attached: attachedV1 }), false],
    ['an attached volume the kubelet no longer uses: a detach may be due', 'modified', node('node-a', { attached: attachedV1 }), true],
    ['not Ready: the unmount timer starts', 'modified', node('node-a', { ready: false }), true],
    ['out of service', 'modified', node('node-a', { outOfService: true }), true],
    ['gone', 'deleted', node('node-a'), true],
    ['not managed by the attach/detach controller: never', 'modified', node('node-a', { managed: false, ready: false }), false],
    ['a new node, Ready with nothing attached', 'added', node('node-b'), false],
  ])('%s', (_name, change, object, asks) => {
    expect(nodeAsks(change, object)).toBe(asks);
  });
});
