/**
 * The handover from the EBS CSI `csi-attacher` sidecar and back (docs/eks.md), as one record every
 * invocation shares through the store: whether writes are on (the handback turns them off at once,
 * faster than a redeploy), the sidecar's Lease record as our invocations first saw it unchanged
 * (client-go's observedTime, so a cold invocation continues a warm one's count), whether we held
 * the Lease (a fenced pass after that is a failback, and loud), and the passes that may still act
 * (the handback releases the Lease only once none can). Pure rules; the store keeps the record.
 */
import type { LeaseDecision, LeaseObservation } from '../lease-fence.js';
import { isLive } from '../operations.js';
import type { NodeName, OperationKind, VolumeId, VolumeRecord } from '../types.js';

export interface HandoverState {
  /** Compare-and-swap version of the shared fields; 0 while the item does not exist. */
  version: number;
  /** `off` once a handback turned writes off: every pass is then a dry run. No item: on. */
  writes: 'on' | 'off';
  /** When and why writes last changed (the handback, or a takeover turning them back on). */
  writesChange?: { at: number; by: string };
  /** Another holder's Lease record, as first seen unchanged by any invocation of ours. */
  observation?: LeaseObservation;
  /** When we took (or created) the Lease; kept until a handback, so a later fenced pass is a failback. */
  heldSince?: number;
  /** Passes that may act, by pass id: the time by which each has surely stopped (its invocation's end plus the lease margin). */
  passes: Readonly<Record<string, number>>;
}

export const NO_HANDOVER: HandoverState = { version: 0, writes: 'on', passes: {} };

/** The fields a compare-and-swap changes; `null` removes one. */
export interface HandoverChange {
  writes?: 'on' | 'off';
  writesChange?: { at: number; by: string };
  observation?: LeaseObservation | null;
  heldSince?: number | null;
}

/** The record after `change` was written at `state.version`. */
export function applyChange(state: HandoverState, change: HandoverChange): HandoverState {
  const next: HandoverState = { ...state, version: state.version + 1 };
  if (change.writes !== undefined) next.writes = change.writes;
  if (change.writesChange !== undefined) next.writesChange = change.writesChange;
  if (change.observation === null) delete next.observation;
  else if (change.observation !== undefined) next.observation = change.observation;
  if (change.heldSince === null) delete next.heldSince;
  else if (change.heldSince !== undefined) next.heldSince = change.heldSince;
  return next;
}

/**
 * How a pass stands with the fence, the `Fenced` metric's `State`: `held` (it acts), `waiting`
 * (another holder's record is live and we never held it: the takeover has not happened), `failed-back`
 * (another holder leads after we held the Lease: our passes lost it, an alarm), `no-lease` (none
 * found and we may not create one), `lost-race` (another candidate wrote the Lease first).
 */
export type FenceState = 'held' | 'waiting' | 'failed-back' | 'no-lease' | 'lost-race';

export const FENCE_STATES: readonly FenceState[] = ['held', 'waiting', 'failed-back', 'no-lease', 'lost-race'];

export function fenceStateOf(decision: LeaseDecision, heldBefore: boolean): FenceState {
  if (decision.kind === 'absent') return 'no-lease';
  if (decision.kind !== 'wait') return 'held';
  return heldBefore ? 'failed-back' : 'waiting';
}

/** The observation every invocation keeps after reading another holder's record: the stored one while the record is unchanged. */
export function sharedObservation(
  state: HandoverState,
  decision: LeaseDecision,
  next: LeaseObservation | undefined,
): HandoverChange | undefined {
  if (decision.kind !== 'wait' || next === undefined) return undefined;
  return state.observation?.resourceVersion === next.resourceVersion ? undefined : { observation: next };
}

/** After we took, created or renewed the Lease: remember that we hold it, and forget the other holder's record. */
export function heldChange(state: HandoverState, now: number): HandoverChange | undefined {
  if (state.heldSince !== undefined && state.observation === undefined) return undefined;
  return { heldSince: state.heldSince ?? now, observation: null };
}

/** Passes that may still act at `now`, soonest done first. */
export function passesStillActing(state: Pick<HandoverState, 'passes'>, now: number): { passId: string; until: number }[] {
  return Object.entries(state.passes)
    .filter(([, until]) => until > now)
    .map(([passId, until]) => ({ passId, until }))
    .sort((a, b) => a.until - b.until || a.passId.localeCompare(b.passId));
}

/** Registrations whose passes have surely stopped: any pass may drop them. */
export function expiredPasses(state: Pick<HandoverState, 'passes'>, now: number): string[] {
  return Object.entries(state.passes)
    .filter(([, until]) => until <= now)
    .map(([passId]) => passId);
}

/** An operation whose lease has not run out: its invocation may still call EC2 for it. */
export interface LeasedOperation {
  volumeId: VolumeId;
  nodeName: NodeName;
  kind: OperationKind;
  until: number;
}

/** What may still act at `now`: registered passes and operations under a live lease, and when the last of them has surely stopped. */
export interface StillActing {
  passes: { passId: string; until: number }[];
  operations: LeasedOperation[];
  /** The latest `until` of them all; `now` when nothing may act. */
  until: number;
}

export function stillActing(state: Pick<HandoverState, 'passes'>, records: Iterable<VolumeRecord>, now: number): StillActing {
  const passes = passesStillActing(state, now);
  const operations = [...records].flatMap((record) =>
    Object.values(record.operations)
      .filter((op) => isLive(op, now))
      .map((op) => ({ volumeId: record.volumeId, nodeName: op.nodeName, kind: op.kind, until: op.leaseExpiresAt })),
  );
  const until = Math.max(now, ...passes.map((p) => p.until), ...operations.map((op) => op.until));
  return { passes, operations, until };
}
