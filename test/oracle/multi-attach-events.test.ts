/**
 * The Multi-Attach event check fires when a scheduled pod waits for an exclusive volume another
 * node holds and has not been told so, and stays quiet on the nearest legal histories: the pod
 * was warned, the volume is shared, the holder is only detaching, the waiting node is not Ready.
 */
import { describe, expect, it } from 'vitest';
import type { KubePod, KubePvc } from '../../lambda/core/kube.js';
import { unwarnedMultiAttach, type PodEvent } from '../../sandbox/oracle/multi-attach-events.js';
import type { Truth, TruthAttachment, TruthNode } from '../../sandbox/oracle/truth.js';

const VOLUME = 'vol-0000000000000000a';
const node = (name: string, instanceId: string, ready = true): TruthNode => ({
  name,
  instanceId,
  ready,
  outOfService: false,
  volumesInUse: [],
  volumesAttached: [],
});
const pair = (nodeName: string) => ({
  volumeId: VOLUME,
  uniqueName: `kubernetes.io/csi/ebs.csi.aws.com^${VOLUME}`,
  nodeName,
  pvName: 'pv-0',
});

/** The volume attached on node-a for a pod there; a second pod waits for it on node-b. */
function truth(change: { state?: TruthAttachment['state']; exclusive?: boolean; readyB?: boolean } = {}): Truth {
  return {
    at: 0,
    attachments: [{ volumeId: VOLUME, instanceId: 'i-a', device: '/dev/xvdaa', state: change.state ?? 'attached' }],
    instanceStates: new Map([
      ['i-a', 'running'],
      ['i-b', 'running'],
    ]),
    nodes: new Map([
      ['node-a', node('node-a', 'i-a')],
      ['node-b', node('node-b', 'i-b', change.readyB ?? true)],
    ]),
    exclusive: new Set(change.exclusive === false ? [] : [VOLUME]),
    desired: [pair('node-a'), pair('node-b')],
    volumeAttachments: [],
  };
}

const pod = (name: string, nodeName: string): KubePod => ({
  metadata: { namespace: 'default', name, uid: `uid-${name}` },
  spec: { nodeName, volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-0' } }] },
});
const claims = [{ metadata: { namespace: 'default', name: 'data-0' }, spec: { volumeName: 'pv-0' } } as KubePvc];
const pods = [pod('holder', 'node-a'), pod('waiter', 'node-b')];
const multiAttach = (name: string, message = 'Multi-Attach error for volume "pv-0" Volume is already used by pod(s) holder'): PodEvent => ({
  type: 'Warning',
  reason: 'FailedAttachVolume',
  message,
  involvedObject: { kind: 'Pod', namespace: 'default', name, uid: `uid-${name}` },
});

const judge = (t: Truth, events: PodEvent[]) => unwarnedMultiAttach(t, { pods, claims, events }).map((v) => v.message);

describe('unwarnedMultiAttach: a pod kept off an exclusive volume is told why', () => {
  it('fires for the waiting pod that has no Multi-Attach event', () => {
    expect(judge(truth(), [])).toEqual([
      `pod default/waiter on node-b waits for ${VOLUME} (RWO, attached to node-a) without a Multi-Attach error event`,
    ]);
  });

  it.each([
    ['an event about another volume', [multiAttach('waiter', 'Multi-Attach error for volume "pv-9" Volume is already used')]],
    ['the event of the pod that holds it', [multiAttach('holder')]],
    ['an AttachVolume.Attach failed event', [multiAttach('waiter', 'AttachVolume.Attach failed for volume "pv-0" : throttled')]],
  ])('still fires with only %s', (_, events) => {
    expect(judge(truth(), events)).toHaveLength(1);
  });

  it.each([
    ['the waiting pod has its Multi-Attach event', truth(), [multiAttach('waiter')]],
    ['the volume is shared (RWX)', truth({ exclusive: false }), []],
    ['the holder is only detaching', truth({ state: 'detaching' }), []],
    ['the waiting node is not Ready', truth({ readyB: false }), []],
  ])('holds when %s', (_, t, events) => {
    expect(judge(t, events)).toEqual([]);
  });
});
