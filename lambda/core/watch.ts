/**
 * The watcher's rules (DESIGN §9, Watcher), pure. Watchers are Lambda invocations started by the
 * schedule; the store's lease item says which are alive. At most two are alive at once: a new one
 * joins only while every live one is within its last minute (the handover), or has gone silent;
 * an old one steps down once its successor watches. A checkpoint is the resourceVersion a watch
 * resumes from: every change before it has been handled.
 */

/** The kinds a watcher follows (their API resource names). */
export type WatchedKind = 'pods' | 'nodes' | 'volumeattachments' | 'persistentvolumes' | 'csinodes';

/** One watcher invocation as the lease records it. */
export interface WatcherHolder {
  startedAt: number;
  /** Its invocation's end (the function's timeout): it is gone by then whatever happens. */
  endsAt: number;
  /** The last time it said it is alive. */
  heartbeatAt: number;
  /** Its streams are open: an older watcher may step down. */
  watching: boolean;
}

export interface WatcherLease {
  holders: Record<string, WatcherHolder>;
  /** Compare-and-swap version; 0 when no item exists. */
  version: number;
}

export interface WatchCheckpoint {
  resourceVersion: string;
  savedAt: number;
}

export interface LeaseRules {
  /** Live watchers allowed at once. */
  maxHolders: number;
  /** A holder whose heartbeat is older than this is dead (its invocation crashed or hangs). */
  staleMs: number;
  /** A new watcher joins only while every live one ends within this long. */
  handoverMs: number;
}

export const WATCHER_LEASE_RULES: LeaseRules = { maxHolders: 2, staleMs: 30_000, handoverMs: 60_000 };

export function isLive(holder: WatcherHolder, now: number, rules: Pick<LeaseRules, 'staleMs'>): boolean {
  return holder.endsAt > now && now - holder.heartbeatAt < rules.staleMs;
}

/** The lease without its dead holders. */
function pruned(lease: WatcherLease, now: number, rules: LeaseRules): Record<string, WatcherHolder> {
  return Object.fromEntries(Object.entries(lease.holders).filter(([, holder]) => isLive(holder, now, rules)));
}

export type JoinDecision = { join: true; next: WatcherLease } | { join: false; why: string };

/** May watcher `id` (ending at `endsAt`) start now? The lease to write if so, the reason if not. */
export function joinLease(
  lease: WatcherLease,
  id: string,
  now: number,
  endsAt: number,
  rules: LeaseRules = WATCHER_LEASE_RULES,
): JoinDecision {
  const live = pruned(lease, now, rules);
  const others = Object.values(live);
  if (others.length >= rules.maxHolders) return { join: false, why: `${others.length} watchers are alive` };
  const staying = others.filter((holder) => holder.endsAt - now > rules.handoverMs);
  if (staying.length > 0) return { join: false, why: 'a live watcher is not within its last minute' };
  const holder: WatcherHolder = { startedAt: now, endsAt, heartbeatAt: now, watching: false };
  return { join: true, next: { holders: { ...live, [id]: holder }, version: lease.version } };
}

export type BeatDecision = { stay: true; next: WatcherLease } | { stay: false; why: string };

/**
 * Watcher `id` says it is alive (and whether it watches). It steps down when the lease no longer
 * names it (it went silent and a successor pruned it) or when a younger live holder already watches.
 */
export function beat(
  lease: WatcherLease,
  id: string,
  now: number,
  watching: boolean,
  rules: LeaseRules = WATCHER_LEASE_RULES,
): BeatDecision {
  const own = lease.holders[id];
  if (own === undefined) return { stay: false, why: 'the lease no longer names this watcher' };
  const live = pruned(lease, now, rules);
  const successor = Object.entries(live).find(([other, holder]) => other !== id && holder.watching && holder.startedAt > own.startedAt);
  if (successor !== undefined) return { stay: false, why: `watcher ${successor[0]} took over` };
  return { stay: true, next: { holders: { ...live, [id]: { ...own, heartbeatAt: now, watching } }, version: lease.version } };
}

/** The lease without watcher `id` (it ends). */
export function leave(lease: WatcherLease, id: string): WatcherLease {
  const { [id]: _gone, ...holders } = lease.holders;
  return { holders, version: lease.version };
}
