/**
 * The watcher's parts and what it needs (DESIGN §9, Watcher). The machinery here is the same in
 * both modes; a mode supplies only which kinds it watches and which targeted pass a change asks
 * for (`WatchMode`, chosen in operating-mode.ts). The passes themselves are the composition root's:
 * the same locks, store and EC2 budget as every other pass.
 */
import type { LeaseRules, WatchedKind } from '../../core/watch.js';
import type { ClusterWatch, WatchChangeType, WatchedObject } from '../../ports/cluster-watch.js';
import type { WatcherStore } from '../../ports/watcher-store.js';
import type { Budget, PassReport, ReconcileDeps, Target } from '../pass/types.js';
import type { WatchCache } from './cache.js';

/**
 * What a change says: the target whose pass would look at the object, and whether the object asks
 * for that pass now (`acts`); one that does not settles any pass still owed for earlier changes.
 */
export interface ChangeTarget {
  target: Target;
  acts: boolean;
}

/** A mode's side of the watcher. */
export interface WatchMode {
  kinds: readonly WatchedKind[];
  /** The target a change is about; undefined when no pass would ever look at the object. */
  targetOf(kind: WatchedKind, change: WatchChangeType, object: WatchedObject): ChangeTarget | undefined;
  /**
   * Kinds held in memory as an informer holds them (cache.ts), listed at every start (a cache
   * needs the whole list, so no checkpoint) and watched; their changes ask for no pass.
   */
  cached?: readonly WatchedKind[];
  /** The target as its pass starts, with what the caches hold of the objects it names. */
  withCache?: (target: Target, cache: WatchCache) => Target;
}

export interface WatcherSettings {
  /** Targeted passes in flight at once. */
  concurrency: number;
  /** `timeoutSeconds` of each watch request: the API server closes it then, with a bookmark 2 s before. */
  watchTimeoutSeconds: number;
  /** A stream that says nothing (no change, no bookmark, no close) for this long has stalled: watch again. */
  stallMs: number;
  /** How often the watcher tells the lease it is alive. */
  heartbeatMs: number;
  /** Checkpoints are saved at most this often (and when the watcher ends). */
  checkpointMs: number;
  /** The watcher's pace between its checks (deadline, stalls, heartbeat, retries): events are handled on arrival. */
  tickMs: number;
  /** A pass is started only with this much of the budget left. */
  minPassMs: number;
  /** Backoff of a target whose pass failed (attempts then given up) or ended unconverged (follow-ups). */
  retry: { initialMs: number; maxMs: number; failures: number; followUps: number };
  lease: LeaseRules;
}

export type WatcherLog = ReconcileDeps['log'];

/** One targeted pass the watcher ran, for logs, the demo and the bench. */
export interface Reaction {
  target: Target;
  /** When the oldest change the pass answers arrived, and when the pass started and ended (epoch ms). */
  receivedAt: number;
  startedAt: number;
  finishedAt: number;
  outcome: 'converged' | 'unconverged' | 'failed';
  actions: number;
}

export interface WatcherDeps {
  cluster: ClusterWatch;
  watchers: WatcherStore;
  clock: () => number;
  /** Waits up to `ms` between the watcher's checks. */
  idle: (ms: number) => Promise<void>;
  newId: () => string;
  log: WatcherLog;
  /** The targeted pass, as every other trigger runs it. */
  runTarget: (target: Target, budget: Budget) => Promise<PassReport>;
  settings: WatcherSettings;
  /** Told of every pass the watcher ran (the demo prints them). */
  onReaction?: (reaction: Reaction) => void;
}

export interface WatcherReport {
  watcherId: string;
  joined: boolean;
  /** Why it did not join, or why it ended: `deadline`, or the lease's word (a successor took over). */
  why: string;
  durationMs: number;
  /** Changes received, and those that asked for a pass. */
  changes: number;
  actionable: number;
  passes: number;
  failedPasses: number;
  /** Targets given up after repeated failures (left to the full pass). */
  abandoned: number;
  /** Lists of the watched kinds (none was saved, or a 410): the checkpoint spares the others. */
  relists: number;
  /** Lists of the cached kinds (one each at every start, and after a 410) and the objects they hold at the end. */
  cacheLists: number;
  cachedObjects: number;
  rewatches: number;
  stalls: number;
  /** Milliseconds from a change's arrival to its pass's start: median and largest. */
  queueWaitMs: { p50: number; max: number };
}
