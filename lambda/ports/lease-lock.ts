/** One coordination.k8s.io/v1 Lease, as the fence reads and writes it (docs/lease-fence.md). */
import type { LeaseRecord } from '../core/lease-fence.js';

export interface LeaseSpecWrite {
  holderIdentity: string;
  leaseDurationSeconds: number;
  /** Epoch ms of the writer's clock; written as the Lease's MicroTime. */
  acquireTime: number;
  renewTime: number;
  leaseTransitions: number;
}

export interface LeaseLock {
  /** The lease, or undefined when it does not exist. */
  get(): Promise<LeaseRecord | undefined>;
  /** Creates it; `conflict` when someone created it first. */
  create(spec: LeaseSpecWrite): Promise<'ok' | 'conflict'>;
  /** Replaces its spec if it is still at `resourceVersion`; `conflict` otherwise (or when it is gone). */
  update(spec: LeaseSpecWrite, resourceVersion: string): Promise<'ok' | 'conflict'>;
}
