/**
 * The mass-detach check fires when one pass detaches more than the guard's fraction of a cluster
 * above its minimum, and stays quiet on the nearest legal histories: at the limit, below the
 * minimum, with exempt detaches (stopped instances, stuck attaches), and where the store's count
 * could have been higher than EC2's.
 */
import { describe, expect, it } from 'vitest';
import type { DetachCall } from '../../sandbox/oracle/calls.js';
import { MassDetachWindowJudge, massDetachViolations, storedAttachments, type StoredAttachment } from '../../sandbox/oracle/mass-detach.js';
import type { Truth, TruthAttachment } from '../../sandbox/oracle/truth.js';

const RULE = { maxFraction: 0.5, minAttached: 10 };
const volume = (i: number) => `vol-${String(i).padStart(8, '0')}`;
/** Volume i on instance i-a (even i) or i-b (odd i). */
const instanceOf = (i: number) => (i % 2 === 0 ? 'i-a' : 'i-b');

const ec2 = (count: number, state: TruthAttachment['state'] = 'attached'): TruthAttachment[] =>
  Array.from({ length: count }, (_, i) => ({ volumeId: volume(i), instanceId: instanceOf(i), device: '/dev/xvdaa', state }));
const stored = (count: number, state = 'attached', from = 0): StoredAttachment[] =>
  Array.from({ length: count }, (_, k) => ({ volumeId: volume(from + k), instanceId: instanceOf(from + k), state }));
const detaches = (count: number): DetachCall[] =>
  Array.from({ length: count }, (_, i) => ({ volumeId: volume(i), instanceId: instanceOf(i) }));

function before(attachments: TruthAttachment[], stateOfB = 'running'): Truth {
  return {
    at: 0,
    attachments,
    instanceStates: new Map([
      ['i-a', 'running'],
      ['i-b', stateOfB],
    ]),
    nodes: new Map(),
    exclusive: new Set(),
    desired: [],
    volumeAttachments: [],
  };
}

const judge = (truth: Truth, store: StoredAttachment[], calls: DetachCall[]) =>
  massDetachViolations({ before: truth, stored: store, detaches: calls, rule: RULE }).map((v) => v.invariant);

describe('massDetachViolations: the mass-detach guard, from EC2 and the store', () => {
  it.each([
    ['12 attached, 7 detached by one pass: more than half', before(ec2(12)), stored(12), detaches(7), [3]],
    ['12 attached, 6 detached: exactly the fraction', before(ec2(12)), stored(12), detaches(6), []],
    ['10 attached (not above the minimum), all detached', before(ec2(10)), stored(10), detaches(10), []],
    ['the same DetachVolume sent twice counts once', before(ec2(12)), stored(12), [...detaches(6), ...detaches(1)], []],
    ['detaches from a stopped instance are exempt', before(ec2(12), 'stopped'), stored(12), detaches(12), []],
    [
      'a stuck attach (EC2 still attaching) is exempt',
      before([
        ...ec2(12),
        ...ec2(14)
          .slice(12)
          .map((a) => ({ ...a, state: 'attaching' as const })),
      ]),
      [...stored(12), ...stored(2, 'attaching', 12)],
      detaches(14).slice(6),
      [],
    ],
    [
      'the store recorded only 10 as attached: the pass may not have counted more',
      before(ec2(12)),
      [...stored(10), ...stored(2, 'attaching', 10)],
      detaches(7),
      [],
    ],
    [
      'the store holds more than EC2 shows: its count bounds the fraction',
      before(ec2(12)),
      [...stored(12), ...stored(4, 'uncertain', 12)],
      detaches(8),
      [],
    ],
    ['EC2 holds 4 the store does not know: the pass may adopt and count them', before(ec2(16)), stored(12), detaches(8), []],
    ['adoptable attachments raise the bound no further than they reach', before(ec2(16)), stored(12), detaches(9), [3]],
  ] as [string, Truth, StoredAttachment[], DetachCall[], number[]][])('%s', (_name, truth, store, calls, expected) => {
    expect(judge(truth, store, calls)).toEqual(expected);
  });
});

describe('storedAttachments', () => {
  it('lists each attachment entry of the raw volume items, skipping other items', () => {
    const items = [
      { pk: 'volume#vol-1', volumeId: 'vol-1', attachments: { a: { nodeName: 'a', instanceId: 'i-a', state: 'attached' } } },
      { pk: 'guard#mass-detach', claims: [] },
    ];
    expect(storedAttachments(items)).toEqual([{ volumeId: 'vol-1', instanceId: 'i-a', state: 'attached' }]);
  });
});

describe('MassDetachWindowJudge: the shared window across steps', () => {
  const WINDOW = 300_000;
  const step = (guarded: number, allowed: number) => ({ applies: true, guarded, allowed, surelyCounted: 2 * allowed });

  it('holds the judged steps of one window to the largest allowance among them', () => {
    const judge = new MassDetachWindowJudge(WINDOW);
    expect(judge.judge(step(15, 15), 0, 0)).toEqual([]);
    expect(judge.judge(step(0, 7), 15_000, 15_000)).toEqual([]);
    expect(judge.judge(step(7, 7), 30_000, 30_000).map((v) => v.invariant)).toEqual([3]);
  });

  it('forgets steps whose claims have expired by the end of this one', () => {
    const judge = new MassDetachWindowJudge(WINDOW);
    judge.judge(step(15, 15), 0, 0);
    expect(judge.judge(step(15, 15), 200_000, WINDOW)).toEqual([]);
  });

  it('starts again after a step it cannot see into, or one where the guard surely did not apply', () => {
    const judge = new MassDetachWindowJudge(WINDOW);
    judge.judge(step(15, 15), 0, 0);
    judge.unjudged();
    expect(judge.judge(step(7, 7), 15_000, 15_000)).toEqual([]);
    judge.judge({ applies: false, guarded: 9, allowed: 4, surelyCounted: 8 }, 30_000, 30_000);
    expect(judge.judge(step(7, 7), 45_000, 45_000)).toEqual([]);
  });
});
