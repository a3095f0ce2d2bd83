/**
 * What watchers agree on, kept in the store (DESIGN §5: process memory may cache, never decide):
 * the lease naming the live watcher invocations, and per watched kind the checkpoint the next
 * watch resumes from. Implemented by `adapters/dynamodb/watcher-store.ts`.
 */
import type { WatcherFacts } from '../core/coverage.js';
import type { WatchCheckpoint, WatchedKind, WatcherLease } from '../core/watch.js';

export interface WatcherStore {
  /** The lease as stored (strongly consistent); `{holders: {}, version: 0}` when there is none. Throws on an unreadable item. */
  readLease(): Promise<WatcherLease>;
  /** Stores `next` (version + 1) if the stored version is still `next.version`; false when another invocation wrote first. */
  writeLease(next: WatcherLease): Promise<boolean>;
  /** The checkpoints saved for these kinds; a kind with none (or an unreadable one) is absent. */
  readCheckpoints(kinds: readonly WatchedKind[]): Promise<Partial<Record<WatchedKind, WatchCheckpoint>>>;
  /**
   * Saves a checkpoint, unconditionally: every checkpoint a watcher saves is safe to resume from
   * (everything before it was handled), so a late older one costs replay, never a gap.
   */
  saveCheckpoint(kind: WatchedKind, checkpoint: WatchCheckpoint): Promise<void>;
  /** The lease, these kinds' checkpoints and the last give-up mark, in one read (the full pass's coverage decision). Throws when any is unreadable. */
  readFacts(kinds: readonly WatchedKind[]): Promise<WatcherFacts>;
  /** A watcher gave up on a target at `at`: the next full pass must be complete. Never moves the mark back. */
  markGaveUp(at: number): Promise<void>;
}
