/**
 * The watcher lease as one invocation uses it: join, beat, leave, each a read and a
 * compare-and-swap repeated while another invocation wins the swap (core/watch.ts decides).
 */
import { beat, joinLease, leave, type LeaseRules, type WatcherLease } from '../../core/watch.js';
import type { WatcherStore } from '../../ports/watcher-store.js';

/** Swaps lost in a row before giving up: far more than the few watchers that can meet. */
const MAX_SWAPS = 10;

async function swap<T>(
  store: WatcherStore,
  decide: (lease: WatcherLease) => { next: WatcherLease; answer: T } | { answer: T },
  gaveUp: T,
): Promise<T> {
  for (let attempt = 0; attempt < MAX_SWAPS; attempt++) {
    const decision = decide(await store.readLease());
    if (!('next' in decision) || (await store.writeLease(decision.next))) return decision.answer;
  }
  return gaveUp;
}

export function joinWatchers(store: WatcherStore, id: string, now: number, endsAt: number, rules: LeaseRules) {
  return swap<{ joined: boolean; why: string }>(
    store,
    (lease) => {
      const decision = joinLease(lease, id, now, endsAt, rules);
      return decision.join
        ? { next: decision.next, answer: { joined: true, why: 'joined' } }
        : { answer: { joined: false, why: decision.why } };
    },
    { joined: false, why: 'the lease kept changing' },
  );
}

export function beatWatchers(store: WatcherStore, id: string, now: number, watching: boolean, rules: LeaseRules) {
  return swap<{ stay: boolean; why: string }>(
    store,
    (lease) => {
      const decision = beat(lease, id, now, watching, rules);
      return decision.stay ? { next: decision.next, answer: { stay: true, why: '' } } : { answer: { stay: false, why: decision.why } };
    },
    // Overlap is safe: a watcher that cannot say it is alive keeps watching until it can, or its deadline.
    { stay: true, why: '' },
  );
}

export function leaveWatchers(store: WatcherStore, id: string): Promise<boolean> {
  return swap(store, (lease) => (id in lease.holders ? { next: leave(lease, id), answer: true } : { answer: true }), false);
}
