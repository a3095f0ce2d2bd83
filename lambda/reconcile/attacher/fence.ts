/**
 * The lease fence at work (docs/lease-fence.md): a pass takes or renews the sidecar's Lease under
 * our identity, and every EC2 mutating call first checks we still hold it. What the invocations
 * agree on lives in the store (the handover record): another holder's record as first seen
 * unchanged by any of them, so a cold invocation counts on from a warm one's sight, and whether we
 * held the Lease. A Lease of ours read or written longer ago than `rereadMs` is read (and renewed)
 * again before the call; without it the call is not made. The Lease's resourceVersion-guarded
 * writes are what makes two writers exclusive.
 */
import {
  applyChange,
  fenceStateOf,
  heldChange,
  sharedObservation,
  type FenceState,
  type HandoverState,
} from '../../core/attacher/handover.js';
import { decideLease, observe, type LeaseDecision, type LeaseRecord, type WhenAbsent } from '../../core/lease-fence.js';
import type { AttachOutcome, BlockStorage, DetachOutcome } from '../../ports/block-storage.js';
import type { HandoverStore } from '../../ports/handover.js';
import type { LeaseLock, LeaseSpecWrite } from '../../ports/lease-lock.js';

export interface FenceOptions {
  lock: LeaseLock;
  store: HandoverStore;
  identity: string;
  /** What we write as `leaseDurationSeconds`: covers our schedule, since the sidecar waits that long after our last write. */
  durationSeconds: number;
  /** Our Lease, read or written longer ago than this, is read again before an EC2 mutating call (docs/lease-fence.md, the bound). */
  rereadMs: number;
  /** No Lease at all: `refuse` (the sidecar may run without leader election) unless told it is gone (`create`). */
  whenAbsent: WhenAbsent;
  now: () => number;
}

/** How the last attempt stands: what a fenced pass reports and the `Fenced` metric counts. */
export interface FenceVerdict {
  held: boolean;
  state: FenceState;
  why: string;
  /** The Lease's holder when it is not us. */
  holder?: string;
}

/** Observations lost to other invocations in a row before this pass gives up (and stays fenced). */
const MAX_SWAPS = 5;

export class LeaseFence {
  /** Our clock before the read or write that last showed the Lease ours. */
  private confirmedAt: number | undefined;
  private state: HandoverState | undefined;
  verdict: FenceVerdict = { held: false, state: 'waiting', why: 'not tried yet' };

  constructor(private readonly options: FenceOptions) {}

  /** Takes the lease if it is free, ours or expired by client-go's rule; `known`: the handover record the pass just read. */
  async acquireOrRenew(known?: HandoverState): Promise<FenceVerdict> {
    const { lock, store, identity, now, whenAbsent } = this.options;
    if (known !== undefined) this.state = known;
    for (let swap = 0; swap < MAX_SWAPS; swap++) {
      const sent = now();
      const lease = await lock.get();
      const received = now();
      const foreign = lease !== undefined && (lease.holderIdentity ?? '') !== '' && lease.holderIdentity !== identity;
      // Another holder's record is judged on the freshest shared observation.
      const fresh = (foreign && !(swap === 0 && known !== undefined)) || this.state === undefined;
      const state = fresh ? await store.read() : (this.state as HandoverState);
      this.state = state;
      const decision = decideLease(lease, state.observation, identity, sent, whenAbsent);
      if (decision.kind === 'absent') return this.lost('no-lease', decision.why);
      if (decision.kind === 'wait') {
        const change = sharedObservation(state, decision, observe(lease as LeaseRecord, state.observation, received));
        // Another invocation recorded a sight first: re-read, and count from the earliest.
        if (change !== undefined && (await store.update(change, state.version)) === 'conflict') {
          this.state = undefined;
          continue;
        }
        return this.lost(fenceStateOf(decision, state.heldSince !== undefined), decision.why, decision.holder);
      }
      return this.write(lease, decision, sent);
    }
    return this.lost('waiting', `the sidecar's Lease record kept changing in the store (${MAX_SWAPS} writes lost in a row)`);
  }

  /** Before an EC2 mutating call: held by a recent enough read or write of ours, or read and renewed now. */
  async holds(): Promise<boolean> {
    if (this.confirmedAt !== undefined && this.options.now() - this.confirmedAt < this.options.rereadMs) return true;
    return (await this.acquireOrRenew()).held;
  }

  private async write(lease: LeaseRecord | undefined, decision: Exclude<LeaseDecision, { kind: 'wait' | 'absent' }>, sent: number) {
    const { lock, identity, durationSeconds } = this.options;
    const spec = nextRecord(lease, decision, identity, durationSeconds, sent);
    const written = lease === undefined ? await lock.create(spec) : await lock.update(spec, lease.resourceVersion);
    // Another of our execution environments may have written first (passes of one SQS batch run side by side): still ours.
    const held = written === 'ok' || (await lock.get())?.holderIdentity === identity;
    if (!held) return this.lost('lost-race', 'another candidate wrote the lease first');
    this.confirmedAt = sent;
    await this.rememberHeld(sent);
    this.verdict = { held: true, state: 'held', why: decision.why };
    return this.verdict;
  }

  /** The store remembers that we hold the Lease (a fenced pass after this is a failback); best effort, it guards nothing. */
  private async rememberHeld(at: number): Promise<void> {
    for (let swap = 0; swap < MAX_SWAPS; swap++) {
      const state = this.state ?? (await this.options.store.read());
      const change = heldChange(state, at);
      if (change === undefined) return;
      if ((await this.options.store.update(change, state.version)) === 'ok') {
        this.state = applyChange(state, change);
        return;
      }
      this.state = undefined;
    }
  }

  private lost(state: FenceState, why: string, holder?: string): FenceVerdict {
    this.confirmedAt = undefined;
    this.verdict = { held: false, state, why, ...(holder === undefined ? {} : { holder }) };
    return this.verdict;
  }
}

/** The record a candidate writes (client-go's rule): a renewal keeps the acquire time, a take counts one more transition. */
export function nextRecord(
  lease: LeaseRecord | undefined,
  decision: Exclude<LeaseDecision, { kind: 'wait' | 'absent' }>,
  identity: string,
  durationSeconds: number,
  at: number,
): LeaseSpecWrite {
  return {
    holderIdentity: identity,
    leaseDurationSeconds: durationSeconds,
    acquireTime: decision.kind === 'renew' ? (lease?.acquireTime ?? at) : at,
    renewTime: at,
    leaseTransitions: (lease?.leaseTransitions ?? 0) + (decision.kind === 'take' ? 1 : 0),
  };
}

const FENCED = { kind: 'failed', code: 'LeaseFenceLost', message: 'we do not hold the csi-attacher lease: no EC2 mutating call' } as const;

/**
 * AttachVolume and DetachVolume go out only while the fence holds; reads and dry runs (they change
 * nothing) are never fenced. The check comes when the call is asked for, before the adapter prepares
 * it (device claim, budget token), as it always did; asked with a go-ahead (`ready`), the call also
 * waits for the caller's last step (the VA finalizer, the detach's intent): a round trip more between
 * the check and the send, against the seconds of `rereadMs` the fence's bound already allows.
 */
export function fencedBlockStorage(inner: BlockStorage, fence: Pick<LeaseFence, 'holds'>): BlockStorage {
  return {
    describeVolumes: (ids) => inner.describeVolumes(ids),
    describeInstanceVolumes: (id) => inner.describeInstanceVolumes(id),
    describeInstances: (ids) => inner.describeInstances(ids),
    observeInstances: (ids) => inner.observeInstances(ids),
    waitFor: (request) => inner.waitFor(request),
    preflight: (request) => inner.preflight(request),
    attach: async (request): Promise<AttachOutcome> => ((await fence.holds()) ? inner.attach(request) : FENCED),
    detach: async (request): Promise<DetachOutcome> => ((await fence.holds()) ? inner.detach(request) : FENCED),
  };
}
