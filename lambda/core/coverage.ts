/**
 * Does a live watcher cover the cluster, so that the minute's full pass may read what changed
 * instead of the whole cluster (a covered pass)? Decided from facts in the store only (DESIGN §5:
 * a cold invocation remembers nothing): the watchers' lease and checkpoints, the mark a watcher
 * leaves when it gives up on a target, and when the last complete pass ran. Anything missing or
 * doubtful makes the pass complete: listing costs time, a missed change could cost an attachment.
 *
 * Upstream pays for a list once and then only for changes: the attach/detach controller's
 * informers never relist in steady state, and external-attacher re-queues every VolumeAttachment
 * from its cache every `--resync` (10 minutes). A complete pass every `completeEveryMs` is that
 * resync, paid with a real list and a description of every volume.
 */
import type { ActualState, DesiredState } from './types.js';
import { isLive, type LeaseRules, type WatchCheckpoint, type WatchedKind, type WatcherLease } from './watch.js';

export interface CoverageSettings {
  /** A complete pass (every list, every volume described) at least this often, however well a watcher covers. */
  completeEveryMs: number;
  /** A covered pass describes every volume at least once in this many consecutive sync periods. */
  verifySlices: number;
}

/** Ten minutes, as external-attacher's default resync; five slices: every volume described within five sync periods. */
export const DEFAULT_COVERAGE: CoverageSettings = { completeEveryMs: 600_000, verifySlices: 5 };

/** What the store says of the watchers, read in one request by the full pass. */
export interface WatcherFacts {
  lease: WatcherLease;
  checkpoints: Partial<Record<WatchedKind, WatchCheckpoint>>;
  /** The last time a watcher gave up on a target and left it to the full pass. */
  gaveUpAt?: number;
}

export interface CoverageInputs {
  /** Undefined when there is no watcher store or its items could not be read. */
  facts: WatcherFacts | undefined;
  /** When the last complete pass started (controller state). */
  completeAt: number | undefined;
  /** The kinds this mode's watcher follows: each needs a checkpoint. */
  kinds: readonly WatchedKind[];
  now: number;
  settings: CoverageSettings;
  rules: Pick<LeaseRules, 'staleMs'>;
}

export type Coverage = { covered: true; watcher: string } | { covered: false; why: string };

export function coverage(inputs: CoverageInputs): Coverage {
  const { facts, completeAt, now, settings } = inputs;
  if (completeAt === undefined) return { covered: false, why: 'no complete pass on record (a cold start)' };
  if (now - completeAt >= settings.completeEveryMs)
    return { covered: false, why: 'the safety period since the last complete pass is over' };
  if (facts === undefined) return { covered: false, why: "the watchers' facts could not be read" };
  if (facts.gaveUpAt !== undefined && facts.gaveUpAt >= completeAt) {
    return { covered: false, why: 'a watcher gave up on a target since the last complete pass' };
  }
  const watching = Object.entries(facts.lease.holders).find(([, holder]) => holder.watching && isLive(holder, now, inputs.rules));
  if (watching === undefined) return { covered: false, why: 'no live watcher is watching' };
  const unsaved = inputs.kinds.filter((kind) => facts.checkpoints[kind] === undefined);
  if (unsaved.length > 0) return { covered: false, why: `no watch checkpoint saved for ${unsaved.join(', ')}` };
  return { covered: true, watcher: watching[0] };
}

/**
 * What a covered pass may plan on: only the volumes with an operation on record (an expired one is
 * resolved against EC2, which needs no cluster knowledge) and no node, so nothing is judged
 * unneeded, detached, unreported or attached from a picture the pass did not read (invariant 3).
 */
export function coveredScope(actual: ActualState): NonNullable<DesiredState['scope']> {
  const volumes = [...actual.values()].filter((record) => Object.keys(record.operations).length > 0).map((record) => record.volumeId);
  return { volumes: volumes.sort(), nodes: [] };
}

/**
 * The records a covered plan can act on: those of the scope's volumes. With no desired attachment
 * and no node in scope, every other record's attachments stop at "out of scope" before any rule
 * reads them, so planning on these alone gives the same plan (a property test holds it) without
 * walking, sorting and indexing every record in the table each sync period.
 */
export function coveredRecords(actual: ActualState, scope: NonNullable<DesiredState['scope']>): ActualState {
  const scoped: ActualState = new Map();
  for (const volumeId of scope.volumes) {
    const record = actual.get(volumeId);
    if (record !== undefined) scoped.set(volumeId, record);
  }
  return scoped;
}
