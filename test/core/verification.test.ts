import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  adoptableNodes,
  clusterKnows,
  instancesOf,
  nodesByInstance,
  recentlyActed,
  rollingTargets,
  seedDue,
  sliceOf,
  unrecordedAttachments,
  unsettledTargets,
  verificationDue,
  verificationTargets,
} from '../../lambda/core/verification.js';
import { pairKey } from '../../lambda/core/types.js';
import { actualOf, attachment, desired, instanceOf, MIN, op, record, T0, uname, view, vol, want } from './builders.js';

describe('seedDue: take over from kube-controller-manager', () => {
  it.each([
    ['a complete read, never seeded', true, undefined, true],
    ['a partial read never seeds', false, undefined, false],
    ['already seeded', true, T0, false],
  ] as const)('%s → %s', (_name, complete, seededAt, due) => {
    expect(seedDue(complete, seededAt)).toBe(due);
  });
});

describe('verificationDue', () => {
  it.each([
    ['while seeding, whatever the last verification', true, T0, T0, true],
    ['never verified', false, undefined, T0, true],
    ['a sync period ago', false, T0 - MIN, T0, true],
    ['less than a sync period ago', false, T0 - MIN + 1, T0, false],
  ] as const)('%s → %s', (_name, seeding, lastVerifiedAt, now, due) => {
    expect(verificationDue(seeding, lastVerifiedAt, now, MIN)).toBe(due);
  });
});

describe('what a pass verifies', () => {
  const nodes = [view('node-a'), view('node-b'), view('nameless', { instanceId: null })];
  const wanted = desired([want(vol(3), 'node-a')], nodes);
  const actual = actualOf(
    record(vol(1), [attachment('node-a')]),
    record(vol(2), [attachment('node-a'), attachment('gone', { state: 'detaching' })]),
    record(vol(4), [attachment('node-b', { state: 'uncertain' }), attachment('node-c', { state: 'attaching' })]),
  );

  it('a full verification: every volume of either state and every instance behind a node or attachment', () => {
    expect(verificationTargets(wanted, actual)).toEqual({
      volumeIds: [vol(1), vol(2), vol(3), vol(4)],
      instanceIds: [instanceOf('gone'), instanceOf('node-a'), instanceOf('node-b'), instanceOf('node-c')].sort(),
    });
  });

  it("between sync periods: only volumes with an attachment in flux, and those attachments' instances", () => {
    expect(unsettledTargets(actual)).toEqual({
      volumeIds: [vol(2), vol(4)],
      instanceIds: [instanceOf('gone'), instanceOf('node-b'), instanceOf('node-c')].sort(),
    });
  });

  it('instancesOf adds the instances named besides, once each', () => {
    expect(instancesOf(wanted, new Map(), ['i-0000000000000000f', instanceOf('node-a')])).toEqual(
      [instanceOf('node-a'), instanceOf('node-b'), 'i-0000000000000000f'].sort(),
    );
  });
});

describe('clusterKnows: may an attachment EC2 shows be taken into the actual state?', () => {
  const state = desired(
    [want(vol(1), 'node-a')],
    [
      view('node-a', { attached: [{ name: uname(vol(2)), devicePath: '/dev/xvdab' }] }),
      view('node-b', {
        inUse: [vol(3)],
        attached: [{ name: `kubernetes.io/aws-ebs/aws://us-east-1a/${vol(4)}`, devicePath: '/dev/xvdac' }],
      }),
    ],
  );
  const withReleased = { ...state, decidedBy: { kind: 'kcm' as const, released: new Set([pairKey(vol(6), 'node-b')]) } };
  it.each([
    ['a desired volume', vol(1), true],
    ['a volume a node reports attached', vol(2), true],
    ['a volume a node mounts', vol(3), true],
    ['a volume a node reports under its in-tree name', vol(4), true],
    ['a volume nobody in the cluster names (a root volume)', vol(5), false],
    ['a volume kcm released (its VolumeAttachment is being deleted; attacher mode)', vol(6), true],
  ])('%s → %s', (_name, volumeId, known) => {
    expect(clusterKnows(withReleased, volumeId)).toBe(known);
  });
});

describe('nodesByInstance', () => {
  it('names the node of each instance; nodes without a valid instance id are left out', () => {
    const state = desired([], [view('node-a'), view('node-b'), view('broken', { instanceId: null })]);
    expect(nodesByInstance(state)).toEqual(
      new Map([
        [instanceOf('node-a'), 'node-a'],
        [instanceOf('node-b'), 'node-b'],
      ]),
    );
  });
});

describe('adoptableNodes: on which nodes may an attachment of a volume EC2 shows be taken into the actual state?', () => {
  const nodes = [
    view('reports', { attached: [{ name: uname(vol(1)), devicePath: '/dev/xvdaa' }] }),
    view('mounts', { inUse: [vol(1)] }),
    view('has-va'),
    view('runs-the-pod'),
    view('unnamed'),
  ];
  const vaPairs = new Set([pairKey(vol(1), 'has-va')]);
  it.each([
    [
      'controller mode: the nodes whose status or VolumeAttachment names the volume, and no other',
      { kind: 'pods' as const, volumeAttachmentPairs: vaPairs },
      ['reports', 'mounts', 'has-va'],
    ],
    ['controller mode without a VolumeAttachment listing: node status only', { kind: 'pods' as const }, ['reports', 'mounts']],
    [
      'attacher mode: every node (what no VolumeAttachment asks for is only reported)',
      { kind: 'kcm' as const, released: new Set<string>() },
      ['reports', 'mounts', 'has-va', 'runs-the-pod', 'unnamed'],
    ],
  ])('%s', (_case, decidedBy, names) => {
    const state = desired([want(vol(1), 'runs-the-pod')], nodes, { decidedBy });
    expect([...adoptableNodes(state, vol(1)).values()]).toEqual(names);
  });
});

describe('unrecordedAttachments: what EC2 shows on a node that the actual state does not hold', () => {
  it('names attachments on nodes that neither the record nor a desired attachment covers', () => {
    const state = desired([want(vol(1), 'node-a')], [view('node-a'), view('node-b'), view('node-c')]);
    const actual = actualOf(record(vol(1), [attachment('node-c')]));
    const seen = (node: string) => ({ instanceId: instanceOf(node), state: 'attached' as const, device: '/dev/xvdf' });
    const observations = {
      volumes: new Map([
        [
          vol(1),
          {
            volumeId: vol(1),
            exists: true,
            attachments: [seen('node-a'), seen('node-b'), seen('node-c'), { ...seen('elsewhere'), instanceId: 'i-0000000000000dead' }],
          },
        ],
      ]),
    };
    expect(unrecordedAttachments(state, actual, observations)).toEqual([
      { volumeId: vol(1), nodeName: 'node-b', instanceId: instanceOf('node-b') },
    ]);
  });
});

describe('rolling verification: what a covered pass describes at a sync', () => {
  const settled = (n: number) => record(vol(n), [attachment('node-a')]);
  const rolling = (slice: number, slices = 4) => ({ slice, slices, now: T0, recentMs: 2 * MIN });

  it('sliceOf is stable and within range, whatever the slice count', () => {
    for (const slices of [1, 3, 10]) {
      for (let n = 1; n <= 50; n++) {
        expect(sliceOf(vol(n), slices)).toBe(sliceOf(vol(n), slices));
        expect(sliceOf(vol(n), slices)).toBeGreaterThanOrEqual(0);
        expect(sliceOf(vol(n), slices)).toBeLessThan(slices);
      }
    }
  });

  it.each([
    ['an attaching attachment', record(vol(1), [attachment('node-a', { state: 'attaching' })]), true],
    ['an operation on record', record(vol(2), [attachment('node-a')], { operations: { [vol(2)]: op('detach', 'node-a') } }), true],
    ['an attachment that changed state a minute ago', record(vol(3), [attachment('node-a', { since: T0 - MIN })]), true],
    ['a settled attachment untouched for ten minutes', record(vol(4), [attachment('node-a')]), false],
  ])('%s is described at every sync, whatever the slice: %s', (_name, rec, always) => {
    const described = [0, 1, 2, 3].map((slice) => rollingTargets(actualOf(rec), rolling(slice)).volumeIds.includes(rec.volumeId));
    expect(described.every(Boolean)).toBe(always);
    // A settled one is described in exactly its own slice.
    if (!always) expect(described.filter(Boolean)).toHaveLength(1);
  });

  it.each([
    [
      "a detaching attachment beside a settled one: only the detaching one's",
      [attachment('node-a', { state: 'detaching' }), attachment('node-b')],
      ['node-a'],
    ],
    [
      'attaching and uncertain attachments: both',
      [attachment('node-a', { state: 'attaching' }), attachment('node-b', { state: 'uncertain' })],
      ['node-a', 'node-b'],
    ],
    ['a settled attachment changed a minute ago: the volume, not its instance', [attachment('node-a', { since: T0 - MIN })], []],
  ] as const)('names the instances behind attachments in flux of the chosen volumes: %s', (_name, attachments, nodes) => {
    const rec = record(vol(5), [...attachments]);
    const other = settled(6);
    const slice = (sliceOf(vol(6), 4) + 1) % 4;
    expect(rollingTargets(actualOf(rec, other), rolling(slice))).toEqual({
      volumeIds: [vol(5)],
      instanceIds: nodes.map((n) => instanceOf(n)).sort(),
    });
  });

  it('a settled volume of the due slice is described without its instance', () => {
    const rec = settled(8);
    expect(rollingTargets(actualOf(rec), rolling(sliceOf(vol(8), 4)))).toEqual({ volumeIds: [vol(8)], instanceIds: [] });
  });

  it('property: the instances described are those of attachments in flux, exactly as between syncs, whatever the slice', () => {
    const states = ['attached', 'attaching', 'detaching', 'uncertain'] as const;
    const volume = fc.record({
      id: fc.integer({ min: 1, max: 100_000 }),
      attachments: fc.uniqueArray(
        fc.record({
          node: fc.constantFrom('node-a', 'node-b', 'node-c', 'node-d'),
          state: fc.constantFrom(...states),
          ago: fc.integer({ min: 0, max: 10 * MIN }),
        }),
        { selector: (a) => a.node, maxLength: 3 },
      ),
    });
    fc.assert(
      fc.property(fc.uniqueArray(volume, { selector: (v) => v.id, maxLength: 60 }), fc.integer({ min: 0, max: 20 }), (volumes, slice) => {
        const actual = actualOf(
          ...volumes.map((v) =>
            record(
              vol(v.id),
              v.attachments.map((a) => attachment(a.node, { state: a.state, since: T0 - a.ago })),
            ),
          ),
        );
        const chosen = rollingTargets(actual, { slice, slices: 5, now: T0, recentMs: 2 * MIN });
        expect(chosen.instanceIds).toEqual(unsettledTargets(actual).instanceIds);
        // Every volume in flux is among the described ones.
        for (const id of unsettledTargets(actual).volumeIds) expect(chosen.volumeIds).toContain(id);
      }),
    );
  });

  it('a slice counter past the slice count wraps round', () => {
    const actual = actualOf(...Array.from({ length: 20 }, (_, i) => settled(i + 1)));
    expect(rollingTargets(actual, rolling(7))).toEqual(rollingTargets(actual, rolling(3)));
  });

  it('property: over `slices` consecutive slices every volume is described, whatever the set and the start', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 1_000_000 }), { maxLength: 200 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 1_000 }),
        (ids, slices, start) => {
          const actual = actualOf(...ids.map(settled));
          const described = new Set<string>();
          for (let k = 0; k < slices; k++) {
            for (const id of rollingTargets(actual, { slice: start + k, slices, now: T0, recentMs: MIN }).volumeIds) described.add(id);
          }
          expect(described).toEqual(new Set(ids.map(vol)));
        },
      ),
    );
  });

  it('recentlyActed: a backoff on record counts, an old settled attachment does not', () => {
    const backedOff = { ...settled(7), backoff: { k: { failures: 1, notBefore: T0 + MIN, lastError: 'throttled' } } };
    expect(recentlyActed(backedOff, T0, MIN)).toBe(true);
    expect(recentlyActed(settled(7), T0, MIN)).toBe(false);
  });
});
