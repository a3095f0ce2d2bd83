/**
 * Handing control back to the csi-attacher sidecar (docs/eks.md, rollback), and taking it again.
 * The handback, in an order that leaves no moment with two writers:
 * 1. writes off in the store's handover record: every pass that starts from now on only plans,
 *    at once (a redeploy would take minutes), and no pass can enter the record any more;
 * 2. wait until nothing of ours can still act: every pass that entered before has surely stopped
 *    (its invocation's end plus the margin) and every operation lease has run out;
 * 3. release the Lease as client-go releases it (holder emptied, guarded by its resourceVersion):
 *    the sidecar's standby takes an empty Lease at its next retry (5 s) and leads again.
 * Each step is told as it happens.
 */
import { applyChange, stillActing, type HandoverChange, type HandoverState, type StillActing } from '../../core/attacher/handover.js';
import type { LeaseRecord } from '../../core/lease-fence.js';
import type { HandoverStore } from '../../ports/handover.js';
import type { LeaseLock, LeaseSpecWrite } from '../../ports/lease-lock.js';
import type { VolumeStore } from '../../ports/volume-store.js';

export interface HandbackDeps {
  handover: HandoverStore;
  store: Pick<VolumeStore, 'scan'>;
  /** The sidecar's Lease and our identity on it; absent when the fence is off (nothing to release). */
  lease?: { lock: LeaseLock; identity: string };
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Told every step as it happens. */
  tell: (step: HandbackStep) => void;
}

export type HandbackStep =
  | { step: 'writes-off'; already: boolean; since: number }
  | { step: 'waiting'; acting: StillActing }
  | { step: 'quiet'; at: number }
  | { step: 'released'; lease: LeaseRecord }
  | { step: 'not-released'; why: string };

/** How often the wait looks at the store again (it never waits past the last `until` it saw). */
const LOOK_EVERY_MS = 2_000;
/** Compare-and-swaps lost in a row before the switch gives up (another handback or takeover at once). */
const MAX_SWAPS = 10;

/** client-go's release (`ReleaseOnCancel`): no holder, a 1 s duration, the transitions kept. */
export function releasedRecord(lease: LeaseRecord, at: number): LeaseSpecWrite {
  return { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: at, renewTime: at, leaseTransitions: lease.leaseTransitions ?? 0 };
}

/** Applies `change` to the handover record unless `done` already holds; the record after, and whether it already held. */
async function swap(
  handover: HandoverStore,
  done: (state: HandoverState) => boolean,
  change: HandoverChange,
): Promise<{ state: HandoverState; already: boolean }> {
  for (let attempt = 0; attempt < MAX_SWAPS; attempt++) {
    const state = await handover.read();
    if (done(state)) return { state, already: true };
    if ((await handover.update(change, state.version)) === 'ok') return { state: applyChange(state, change), already: false };
  }
  throw new Error(`the handover record kept changing (${MAX_SWAPS} writes lost in a row): try again`);
}

/**
 * Writes on or off in the handover record. Turning them on forgets the Lease we held and the
 * sidecar's record we saw: the takeover that follows starts afresh, and a fenced pass before it
 * takes the Lease is no failback of the last one.
 */
export function switchWrites(handover: HandoverStore, writes: 'on' | 'off', at: number, by: string) {
  const forget = writes === 'on' ? { heldSince: null, observation: null } : {};
  return swap(handover, (state) => state.writes === writes, { writes, writesChange: { at, by }, ...forget });
}

async function waitUntilQuiet(deps: HandbackDeps): Promise<void> {
  for (;;) {
    const now = deps.now();
    const [state, { records }] = await Promise.all([deps.handover.read(), deps.store.scan()]);
    const acting = stillActing(state, records.values(), now);
    if (acting.passes.length === 0 && acting.operations.length === 0) {
      deps.tell({ step: 'quiet', at: now });
      return;
    }
    deps.tell({ step: 'waiting', acting });
    await deps.sleep(Math.min(LOOK_EVERY_MS, acting.until - now));
  }
}

async function release(deps: HandbackDeps): Promise<HandbackStep> {
  if (deps.lease === undefined) return { step: 'not-released', why: 'the lease fence is off (LEASE_FENCE=off): we hold no Lease' };
  const { lock, identity } = deps.lease;
  const lease = await lock.get();
  if (lease === undefined) return { step: 'not-released', why: 'there is no Lease: the sidecar creates its own' };
  if (lease.holderIdentity !== identity)
    return { step: 'not-released', why: `the Lease is held by ${lease.holderIdentity || 'no one'}, not by us (${identity})` };
  const written = await lock.update(releasedRecord(lease, deps.now()), lease.resourceVersion);
  if (written === 'conflict') return { step: 'not-released', why: 'the Lease changed while we released it: run the handback again' };
  // We hold it no more: a fenced pass from now on is no failback.
  await swap(deps.handover, (state) => state.heldSince === undefined, { heldSince: null, observation: null });
  return { step: 'released', lease };
}

export async function handBack(deps: HandbackDeps, by = 'handback'): Promise<HandbackStep[]> {
  const steps: HandbackStep[] = [];
  const tell = (step: HandbackStep) => {
    steps.push(step);
    deps.tell(step);
  };
  const switched = await switchWrites(deps.handover, 'off', deps.now(), by);
  tell({ step: 'writes-off', already: switched.already, since: switched.state.writesChange?.at ?? deps.now() });
  await waitUntilQuiet({ ...deps, tell });
  tell(await release(deps));
  return steps;
}
