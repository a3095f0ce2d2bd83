import { describe, expect, it } from 'vitest';
import { coverage, coveredRecords, coveredScope, DEFAULT_COVERAGE, type WatcherFacts } from '../../lambda/core/coverage.js';
import { WATCHER_LEASE_RULES, type WatcherHolder } from '../../lambda/core/watch.js';
import { actualOf, attachment, MIN, op, record, T0, vol } from './builders.js';

const holder = (o: Partial<WatcherHolder> = {}): WatcherHolder => ({
  startedAt: T0 - 5 * MIN,
  endsAt: T0 + 9 * MIN,
  heartbeatAt: T0 - 5_000,
  watching: true,
  ...o,
});
const checkpoint = { resourceVersion: '42', savedAt: T0 - 3 * MIN };
const facts = (o: Partial<WatcherFacts> = {}): WatcherFacts => ({
  lease: { holders: { w1: holder() }, version: 3 },
  checkpoints: { pods: checkpoint, nodes: checkpoint },
  ...o,
});
/** `null`: no complete pass on record. */
const decide = (f: WatcherFacts | undefined, completeAt: number | null = T0 - 3 * MIN) =>
  coverage({
    facts: f,
    completeAt: completeAt ?? undefined,
    kinds: ['pods', 'nodes'],
    now: T0,
    settings: DEFAULT_COVERAGE,
    rules: WATCHER_LEASE_RULES,
  });

describe('coverage: may the full pass read what changed instead of the whole cluster?', () => {
  it('a live watcher that watches, with a checkpoint for every kind, since a recent complete pass: covered', () => {
    expect(decide(facts())).toEqual({ covered: true, watcher: 'w1' });
  });

  it.each([
    ['no complete pass on record (a cold start)', facts(), null, /cold start/],
    ['the safety period since the last complete pass is over', facts(), T0 - DEFAULT_COVERAGE.completeEveryMs, /safety period/],
    ["the watchers' facts could not be read", undefined, T0 - MIN, /could not be read/],
    ['a watcher gave up on a target after the last complete pass', facts({ gaveUpAt: T0 - MIN }), T0 - 3 * MIN, /gave up/],
    ['a watcher gave up as the last complete pass started', facts({ gaveUpAt: T0 - 3 * MIN }), T0 - 3 * MIN, /gave up/],
    ['no watcher at all', facts({ lease: { holders: {}, version: 0 } }), T0 - MIN, /no live watcher/],
    [
      'the only watcher went silent (heartbeat older than the lease allows)',
      facts({ lease: { holders: { w1: holder({ heartbeatAt: T0 - 31_000 }) }, version: 3 } }),
      T0 - MIN,
      /no live watcher/,
    ],
    [
      'the only watcher has passed its end',
      facts({ lease: { holders: { w1: holder({ endsAt: T0 }) }, version: 3 } }),
      T0 - MIN,
      /no live watcher/,
    ],
    [
      'the only watcher is alive but a stream is not open (stalled, relisting)',
      facts({ lease: { holders: { w1: holder({ watching: false }) }, version: 3 } }),
      T0 - MIN,
      /no live watcher/,
    ],
    ['a kind was never checkpointed', facts({ checkpoints: { pods: checkpoint } }), T0 - MIN, /no watch checkpoint saved for nodes/],
  ])('%s: complete', (_name, f, completeAt, why) => {
    const decided = decide(f, completeAt);
    expect(decided.covered).toBe(false);
    expect(decided.covered ? '' : decided.why).toMatch(why);
  });

  it('a give-up older than the last complete pass was answered by it: covered', () => {
    expect(decide(facts({ gaveUpAt: T0 - 4 * MIN })).covered).toBe(true);
  });

  it('two holders, one watching: covered by the one that watches', () => {
    const lease = { holders: { old: holder({ watching: false }), young: holder({ startedAt: T0 - MIN }) }, version: 5 };
    expect(decide(facts({ lease }))).toEqual({ covered: true, watcher: 'young' });
  });
});

describe('what a covered plan reads', () => {
  const operated = record(vol(1), [attachment('node-a')], { operations: { [vol(1)]: op('detach', 'node-a') } });
  const settled = record(vol(2), [attachment('node-b')]);

  it('the scope holds the volumes with an operation on record and no node', () => {
    expect(coveredScope(actualOf(settled, operated))).toEqual({ volumes: [vol(1)], nodes: [] });
  });

  it("the plan reads the scope's records only; a scope volume with no record is skipped", () => {
    const scoped = coveredRecords(actualOf(settled, operated), { volumes: [vol(1), vol(3)], nodes: [] });
    expect([...scoped.values()]).toEqual([operated]);
  });
});
