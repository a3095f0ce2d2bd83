/**
 * The lease fence at work (docs/lease-fence.md): every pass takes or renews the sidecar's Lease
 * under our identity, and every EC2 mutating call first checks we still hold it. The record we
 * last wrote is trusted by our own clock until `margin` before it expires; after that the Lease
 * is read and renewed before the call, and without it the call is not made.
 * What this execution environment remembers (its observation of another holder's record, the
 * time of its own last write) is what a client-go candidate remembers; the Lease's
 * resourceVersion-guarded writes are what makes two writers exclusive.
 */
import {
  decideLease,
  fenceStatus,
  observe,
  type LeaseDecision,
  type LeaseObservation,
  type LeaseRecord,
  type OurLease,
} from '../../core/lease-fence.js';
import type { AttachOutcome, BlockStorage, DetachOutcome } from '../../ports/block-storage.js';
import type { LeaseLock, LeaseSpecWrite } from '../../ports/lease-lock.js';
import type { PassOptions, PassReport } from '../pass/types.js';

export interface FenceOptions {
  lock: LeaseLock;
  identity: string;
  /** What we write as `leaseDurationSeconds`: covers our schedule, since the sidecar waits that long after our last write. */
  durationSeconds: number;
  /** Kept to spare before our record expires: an EC2 request in flight. */
  marginMs: number;
  now: () => number;
}

export class LeaseFence {
  private ours: OurLease | undefined;
  private observation: LeaseObservation | undefined;
  /** Why the last attempt holds or does not hold the lease: what a fenced pass reports. */
  why = 'not tried yet';

  constructor(private readonly options: FenceOptions) {}

  /** Takes the lease if it is free, ours or expired by client-go's rule; true when we hold it now. */
  async acquireOrRenew(): Promise<boolean> {
    const { lock, identity, durationSeconds, now } = this.options;
    const lease = await lock.get();
    const at = now();
    const decision = decideLease(lease, this.observation, identity, at);
    if (lease !== undefined) this.observation = observe(lease, this.observation, at);
    this.why = decision.why;
    if (decision.kind === 'wait') {
      this.ours = undefined;
      return false;
    }
    const spec = nextRecord(lease, decision, identity, durationSeconds, at);
    const written = lease === undefined ? await lock.create(spec) : await lock.update(spec, lease.resourceVersion);
    // Another of our execution environments may have written first (passes of one SQS batch run side by side): still ours.
    const held = written === 'ok' || (await lock.get())?.holderIdentity === identity;
    this.ours = held ? { writtenAt: at, durationSeconds } : undefined;
    if (!held) this.why = 'another candidate wrote the lease first';
    return held;
  }

  /** Before an EC2 mutating call: held by our last record, or read and renewed now. */
  async holds(): Promise<boolean> {
    return fenceStatus(this.ours, this.options.now(), this.options.marginMs) === 'held' || this.acquireOrRenew();
  }
}

/** The record a candidate writes (client-go's rule): a renewal keeps the acquire time, a take counts one more transition. */
export function nextRecord(
  lease: LeaseRecord | undefined,
  decision: Exclude<LeaseDecision, { kind: 'wait' }>,
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

/** AttachVolume and DetachVolume go out only while the fence holds; reads are never fenced. */
export function fencedBlockStorage(inner: BlockStorage, fence: Pick<LeaseFence, 'holds'>): BlockStorage {
  return {
    describeVolumes: (ids) => inner.describeVolumes(ids),
    describeInstanceVolumes: (id) => inner.describeInstanceVolumes(id),
    describeInstances: (ids) => inner.describeInstances(ids),
    observeInstances: (ids) => inner.observeInstances(ids),
    waitFor: (request) => inner.waitFor(request),
    attach: async (request): Promise<AttachOutcome> => ((await fence.holds()) ? inner.attach(request) : FENCED),
    detach: async (request): Promise<DetachOutcome> => ((await fence.holds()) ? inner.detach(request) : FENCED),
  };
}

/** A pass under the fence: we take or renew the Lease first; without it the pass only plans (a dry run) and says why. */
export async function underFence(
  fence: LeaseFence | undefined,
  options: PassOptions,
  run: (options: PassOptions) => Promise<PassReport>,
): Promise<PassReport> {
  if (fence === undefined || (await fence.acquireOrRenew())) return run(options);
  return { ...(await run({ ...options, dryRun: true })), fenced: fence.why };
}
