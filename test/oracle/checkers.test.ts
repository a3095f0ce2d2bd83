/**
 * Each invariant checker of the oracle fires on a history that breaks its invariant, and stays
 * quiet on the nearest history that does not: a checker that cannot fail proves nothing.
 */
import { describe, expect, it } from 'vitest';
import { checkStep, exclusiveOnce, reportedIsAttached } from '../../sandbox/oracle/checks.js';
import { detachViolations, observeUnneeded, pairKey, type DetachFacts } from '../../sandbox/oracle/live-checks.js';
import { storeKnows, storePair, unknownToStore } from '../../sandbox/oracle/store-known.js';
import type { Truth, TruthAttachment, TruthNode } from '../../sandbox/oracle/truth.js';

const V1 = 'vol-00000001';
const uname = (v: string) => `kubernetes.io/csi/ebs.csi.aws.com^${v}`;
const MAX_WAIT = 360_000;
const node = (o: Partial<TruthNode> = {}): TruthNode => ({
  name: 'a',
  instanceId: 'i-a',
  ready: true,
  outOfService: false,
  volumesInUse: [],
  volumesAttached: [],
  ...o,
});
const attachment = (o: Partial<TruthAttachment> = {}): TruthAttachment => ({
  volumeId: V1,
  instanceId: 'i-a',
  device: '/dev/xvdaa',
  state: 'attached',
  ...o,
});
const needed = { volumeId: V1, uniqueName: uname(V1), nodeName: 'a', pvName: 'pv-1' };

function truth(o: Partial<Truth> & { node?: Partial<TruthNode> } = {}): Truth {
  const { node: nodeChanges, ...rest } = o;
  return {
    at: 0,
    attachments: [attachment()],
    instanceStates: new Map([
      ['i-a', 'running'],
      ['i-b', 'running'],
    ]),
    nodes: new Map([
      ['a', node(nodeChanges)],
      ['b', node({ name: 'b', instanceId: 'i-b' })],
    ]),
    exclusive: new Set([V1]),
    desired: [],
    volumeAttachments: [],
    ...rest,
  };
}

const mountedOnA = { volumesInUse: [uname(V1)] };
const detach = (now: Truth, o: Partial<DetachFacts> = {}) =>
  detachViolations({
    volumeId: V1,
    instanceId: 'i-a',
    now,
    stepStart: now,
    unneededSince: new Map([[pairKey(V1, 'a'), 0]]),
    maxWaitForUnmountMs: MAX_WAIT,
    ...o,
  }).map((v) => v.invariant);

describe('invariant 1: exclusiveOnce', () => {
  it('fires when an RWO volume is attached (or attaching) to a second instance', () => {
    expect(exclusiveOnce(truth({ attachments: [attachment(), attachment({ instanceId: 'i-b', state: 'attaching' })] }))).toHaveLength(1);
    expect(exclusiveOnce(truth())).toEqual([]);
  });
});

describe('invariant 2: detachViolations at the DetachVolume', () => {
  it.each([
    ['mounted on a Ready node', { node: mountedOnA }, 0, [2]],
    [
      'mounted on a not-Ready node, exactly maxWaitForUnmount after it became unneeded',
      { node: { ...mountedOnA, ready: false } },
      MAX_WAIT,
      [2],
    ],
    ['mounted on a not-Ready node, 1 ms past maxWaitForUnmount', { node: { ...mountedOnA, ready: false } }, MAX_WAIT + 1, []],
    ['mounted on an out-of-service node', { node: { ...mountedOnA, outOfService: true } }, 0, []],
    ['not mounted', {}, 0, []],
  ] as [string, { node?: Partial<TruthNode> }, number, number[]][])('%s', (_name, shape, at, expected) => {
    expect(detach(truth({ ...shape, at }))).toEqual(expected);
  });

  it('a stopped instance protects nothing: no OS can be writing', () => {
    expect(detach(truth({ node: mountedOnA, instanceStates: new Map([['i-a', 'stopped']]) }))).toEqual([]);
  });

  it.each(['stopping', 'shutting-down'])(
    'an instance still %s on a Ready node may still write: its mounted volume is protected',
    (state) => {
      expect(detach(truth({ node: mountedOnA, instanceStates: new Map([['i-a', state]]) }))).toEqual([2]);
    },
  );
});

describe('invariant 3: a needed volume is never detached', () => {
  it('fires when a pod needed it when the step began and still does', () => {
    expect(detach(truth({ desired: [needed] }))).toEqual([3]);
  });

  it('stays quiet when the pod arrived mid-step (the pass could not have known)', () => {
    expect(detach(truth({ desired: [needed] }), { stepStart: truth() })).toEqual([]);
  });
});

describe('observeUnneeded: when a mounted volume stopped being needed', () => {
  it('starts the clock when the pod goes, and starts over when a pod needs it again', () => {
    const since = new Map<string, number>();
    observeUnneeded(truth({ at: 10, node: mountedOnA, desired: [needed] }), since);
    observeUnneeded(truth({ at: 20, node: mountedOnA }), since);
    observeUnneeded(truth({ at: 30, node: mountedOnA }), since);
    expect(since.get(pairKey(V1, 'a'))).toBe(20);
    observeUnneeded(truth({ at: 40, node: mountedOnA, desired: [needed] }), since);
    expect(since.has(pairKey(V1, 'a'))).toBe(false);
  });
});

describe('invariant 4: unknownToStore', () => {
  const LEASE = 315_000;
  const old = truth({ at: LEASE + 1, attachments: [attachment({ attachedAt: 0 })] });
  it.each([
    ['an attachment the store does not know, past the lease', old, [], [4]],
    ['the same, known as an attachment or an operation', old, [storePair(V1, 'i-a')], []],
    ['an unknown attachment still within the lease', truth({ at: LEASE, attachments: [attachment({ attachedAt: 0 })] }), [], []],
    [
      'an unknown attachment on its way out (detaching)',
      truth({ at: LEASE + 1, attachments: [attachment({ attachedAt: 0, state: 'detaching' })] }),
      [],
      [],
    ],
  ] as [string, Truth, string[], number[]][])('%s', (_name, state, known, expected) => {
    expect(unknownToStore(state, new Set(known), LEASE).map((v) => v.invariant)).toEqual(expected);
  });

  it('reads what the store knows from its items: attachments and in-flight operations', () => {
    const items = [
      { volumeId: V1, attachments: { a: { instanceId: 'i-a' } }, operations: { volume: { instanceId: 'i-b' } } },
      { pk: 'controller#state' },
    ];
    expect([...storeKnows(items)].sort()).toEqual([storePair(V1, 'i-a'), storePair(V1, 'i-b')]);
  });
});

describe('invariant 5: reportedIsAttached', () => {
  const listing = { volumesAttached: [{ name: uname(V1), devicePath: '/dev/xvdaa' }] };
  it.each([
    ['attached', [] as number[]],
    ['attaching', [5]],
    ['detaching', [5]],
    ['busy', [5]],
  ] as [TruthAttachment['state'], number[]][])('a node listing a volume EC2 has %s there', (state, expected) => {
    expect(reportedIsAttached(truth({ node: listing, attachments: [attachment({ state })] })).map((v) => v.invariant)).toEqual(expected);
  });

  it('pardons the entry of a pair EC2 lost behind our back, and only that pair', () => {
    const lostOnA = truth({ node: listing, attachments: [] });
    expect(reportedIsAttached(lostOnA, new Set([pairKey(V1, 'a')]))).toEqual([]);
    expect(reportedIsAttached(lostOnA, new Set([pairKey(V1, 'b')])).map((v) => v.invariant)).toEqual([5]);
  });
});

describe('invariant 6: attaches on fresh ground', () => {
  it('fires on an AttachVolume of a pair EC2 already had attached', () => {
    const calls = [{ action: 'AttachVolume' as const, volumeId: V1, instanceId: 'i-a', device: '/dev/xvdab' }];
    expect(checkStep({ before: truth(), after: truth(), mutations: calls }).map((v) => v.invariant)).toEqual([6]);
    expect(checkStep({ before: truth({ attachments: [] }), after: truth({ attachments: [] }), mutations: calls })).toEqual([]);
  });
});
