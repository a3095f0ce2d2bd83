/**
 * The sidecar's leader election, modelled small and deterministic on the sandbox clock: one
 * Lease held in memory with resourceVersion compare-and-swap (as the API server guards Lease
 * updates), and a standby that behaves as client-go's `LeaderElector` with csi-lib-utils'
 * defaults (15 s lease, 5 s retry period): it takes the lease only when the record it sees has
 * not changed for the record's own `leaseDurationSeconds` of its clock. The elector runs on either
 * Lease: the in-memory one, or the local kube API's through the same adapter the controller uses.
 */
import { decideLease, observe, type LeaseObservation, type LeaseRecord } from '../lambda/core/lease-fence.js';
import { createKubeClients } from '../lambda/adapters/kubernetes/clients.js';
import { kubeConfigFromFile } from '../lambda/adapters/kubernetes/kubeconfig.js';
import { KubernetesLeaseLock } from '../lambda/adapters/kubernetes/lease-lock.js';
import type { Clock } from '../lambda/clock.js';
import type { LeaseLock, LeaseSpecWrite } from '../lambda/ports/lease-lock.js';
import { nextRecord } from '../lambda/reconcile/attacher/fence.js';

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
      renewTime: spec.renewTime,
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
    /** `--leader-election-lease-duration`: what the sidecar writes as `leaseDurationSeconds`. */
    private readonly leaseSeconds = SidecarElector.LEASE_SECONDS,
  ) {}

  /** True when the sidecar leads after this attempt (and would attach and detach). */
  async tick(): Promise<boolean> {
    const lease = await this.lock.get();
    const at = this.now();
    const decision = decideLease(lease, this.observation, this.identity, at);
    if (lease !== undefined) this.observation = observe(lease, this.observation, at);
    // client-go creates a missing Lease (`absent` is the fence's refusal, never the elector's).
    if (decision.kind === 'wait' || decision.kind === 'absent') return false;
    const spec = nextRecord(lease, decision, this.identity, this.leaseSeconds, at);
    const written = lease === undefined ? await this.lock.create(spec) : await this.lock.update(spec, lease.resourceVersion);
    return written === 'ok';
  }
}

/** The EBS CSI add-on's attacher Lease (docs/lease-fence.md). */
export const SIDECAR_LEASE = { name: 'external-attacher-leader-ebs-csi-aws-com', namespace: 'kube-system' };

/** The sidecar's elector on a kube API's Lease, with its own client as the controller pod has; the identity is a pod name. */
export function sidecarOnKube(
  kubeconfigPath: string,
  clock: Clock,
  identity = 'ebs-csi-controller-6f7d9c8b5-x2k4p',
  leaseSeconds?: number,
) {
  const clients = createKubeClients(kubeConfigFromFile(kubeconfigPath), { clock });
  return {
    elector: new SidecarElector(new KubernetesLeaseLock(clients.coordination, SIDECAR_LEASE), identity, () => clock.now(), leaseSeconds),
    /** The rollback step (`kubectl -n kube-system delete lease …`). */
    deleteLease: async () => void (await clients.coordination.deleteNamespacedLease(SIDECAR_LEASE)),
    close: () => clients.close(),
  };
}
