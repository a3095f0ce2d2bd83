/**
 * The sidecar's leader election, modelled small and deterministic on the sandbox clock: one
 * Lease held in memory with resourceVersion compare-and-swap (as the API server guards Lease
 * updates), and a standby that behaves as client-go's `LeaderElector` with csi-lib-utils'
 * defaults (15 s lease, 5 s retry period): it takes the lease only when the record it sees has
 * not changed for the record's own `leaseDurationSeconds` of its clock.
 */
import { decideLease, observe, type LeaseObservation, type LeaseRecord } from '../lambda/core/lease-fence.js';
import type { LeaseLock, LeaseSpecWrite } from '../lambda/ports/lease-lock.js';
import { nextRecord } from '../lambda/reconcile/fence.js';

export class MemoryLease implements LeaseLock {
  private record: (LeaseRecord & { spec: LeaseSpecWrite }) | undefined;
  private version = 0;

  get(): Promise<LeaseRecord | undefined> {
    return Promise.resolve(this.record && { ...this.record });
  }

  create(spec: LeaseSpecWrite): Promise<'ok' | 'conflict'> {
    if (this.record !== undefined) return Promise.resolve('conflict');
    this.write(spec);
    return Promise.resolve('ok');
  }

  update(spec: LeaseSpecWrite, resourceVersion: string): Promise<'ok' | 'conflict'> {
    if (this.record?.resourceVersion !== resourceVersion) return Promise.resolve('conflict');
    this.write(spec);
    return Promise.resolve('ok');
  }

  /** The rollback step: the Lease is deleted. */
  delete(): void {
    this.record = undefined;
  }

  holder(): string | undefined {
    return this.record?.holderIdentity;
  }

  private write(spec: LeaseSpecWrite): void {
    this.version++;
    this.record = {
      resourceVersion: String(this.version),
      holderIdentity: spec.holderIdentity,
      leaseDurationSeconds: spec.leaseDurationSeconds,
      leaseTransitions: spec.leaseTransitions,
      acquireTime: spec.acquireTime,
      spec,
    };
  }
}

/** csi-attacher's elector: `tick()` is one retry period's attempt (a leader renews, a standby tries to acquire). */
export class SidecarElector {
  private observation: LeaseObservation | undefined;
  static readonly LEASE_SECONDS = 15;

  constructor(
    private readonly lock: LeaseLock,
    readonly identity: string,
    private readonly now: () => number,
  ) {}

  /** True when the sidecar leads after this attempt (and would attach and detach). */
  async tick(): Promise<boolean> {
    const lease = await this.lock.get();
    const at = this.now();
    const decision = decideLease(lease, this.observation, this.identity, at);
    if (lease !== undefined) this.observation = observe(lease, this.observation, at);
    if (decision.kind === 'wait') return false;
    const spec = nextRecord(lease, decision, this.identity, SidecarElector.LEASE_SECONDS, at);
    const written = lease === undefined ? await this.lock.create(spec) : await this.lock.update(spec, lease.resourceVersion);
    return written === 'ok';
  }
}
