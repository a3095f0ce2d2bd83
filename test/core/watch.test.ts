import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { beat, isLive, joinLease, leave, WATCHER_LEASE_RULES, type WatcherLease } from '../../lambda/core/watch.js';

const S = 1000;
const M = 60 * S;
const empty: WatcherLease = { holders: {}, version: 0 };
/** A watcher started at `at` with a five-minute invocation, heartbeat `beatAt`. */
const holder = (at: number, beatAt = at, watching = true) => ({ startedAt: at, endsAt: at + 5 * M, heartbeatAt: beatAt, watching });

describe('joining the watcher lease', () => {
  it.each<[string, WatcherLease, number, boolean]>([
    ['no watcher: join', empty, 0, true],
    ['one live watcher with four minutes left: exit at once', { holders: { a: holder(0, 55 * S) }, version: 3 }, 1 * M, false],
    [
      'one live watcher within its last minute: join (the handover)',
      { holders: { a: holder(0, 4 * M) }, version: 3 },
      4 * M + 10 * S,
      true,
    ],
    ['one watcher silent for 30 s: it is dead, join', { holders: { a: holder(0, 1 * M) }, version: 3 }, 1 * M + 30 * S, true],
    ['one watcher past its end: join', { holders: { a: holder(0, 5 * M) }, version: 3 }, 5 * M, true],
    [
      'two live watchers, both ending within a minute: still only two',
      { holders: { a: holder(0, 4 * M + 30 * S), b: holder(10 * S, 4 * M + 30 * S) }, version: 3 },
      4 * M + 40 * S,
      false,
    ],
  ])('%s', (_name, lease, now, joins) => {
    expect(joinLease(lease, 'new', now, now + 5 * M).join).toBe(joins);
  });

  it('a join writes the live holders and itself at the version read (the store swaps on it), dropping the dead', () => {
    const lease = { holders: { dead: holder(0, 0), old: holder(0, 4 * M) }, version: 7 };
    const decision = joinLease(lease, 'new', 4 * M + 5 * S, 9 * M);
    expect(decision).toEqual({
      join: true,
      next: {
        version: 7,
        holders: { old: holder(0, 4 * M), new: { startedAt: 4 * M + 5 * S, endsAt: 9 * M, heartbeatAt: 4 * M + 5 * S, watching: false } },
      },
    });
  });
});

describe('beating and stepping down', () => {
  it('a beat refreshes its own heartbeat and watching flag', () => {
    const lease = { holders: { a: holder(0, 0, false) }, version: 1 };
    expect(beat(lease, 'a', 10 * S, true)).toEqual({ stay: true, next: { version: 1, holders: { a: holder(0, 10 * S, true) } } });
  });

  it('steps down once a younger live holder watches, not before', () => {
    const joining = { holders: { a: holder(0, 4 * M), b: holder(4 * M, 4 * M, false) }, version: 2 };
    expect(beat(joining, 'a', 4 * M + S, true).stay).toBe(true);
    const watching = { holders: { a: holder(0, 4 * M), b: holder(4 * M, 4 * M + S, true) }, version: 3 };
    expect(beat(watching, 'a', 4 * M + 2 * S, true)).toEqual({ stay: false, why: 'watcher b took over' });
    // The younger one never steps down for the older.
    expect(beat(watching, 'b', 4 * M + 2 * S, true).stay).toBe(true);
  });

  it('steps down when a successor pruned it (it went silent)', () => {
    expect(beat({ holders: { b: holder(M) }, version: 4 }, 'a', M, true)).toEqual({
      stay: false,
      why: 'the lease no longer names this watcher',
    });
  });

  it('leaving removes only itself', () => {
    expect(leave({ holders: { a: holder(0), b: holder(M) }, version: 5 }, 'a')).toEqual({ holders: { b: holder(M) }, version: 5 });
  });
});

describe('properties', () => {
  it('whatever the ticks, heartbeats and crashes, at most two watchers are ever live together', () => {
    // A tick a minute starts a five-minute watcher if the lease lets it; live watchers beat every 10 s unless crashed.
    const run = fc.record({ crashes: fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }), jitter: fc.integer({ min: 0, max: 59 }) });
    fc.assert(
      fc.property(run, ({ crashes, jitter }) => {
        let lease = empty;
        const crashed = new Set<string>();
        for (let t = 0; t < 30 * M; t += 10 * S) {
          for (const id of Object.keys(lease.holders)) {
            if (crashed.has(id)) continue;
            const decision = beat(lease, id, t, true);
            lease = decision.stay ? decision.next : leave(lease, id);
          }
          if ((t - jitter * S) % M === 0) {
            const id = `w${t}`;
            const decision = joinLease(lease, id, t, t + 5 * M);
            if (decision.join) lease = decision.next;
            if (crashes[Math.floor(t / M)] === true) crashed.add(id);
          }
          const live = Object.values(lease.holders).filter((h) => isLive(h, t, WATCHER_LEASE_RULES));
          expect(live.length).toBeLessThanOrEqual(2);
        }
      }),
      { numRuns: 40 },
    );
  });
});
