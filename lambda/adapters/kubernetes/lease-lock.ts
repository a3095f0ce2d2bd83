/**
 * The lease fence's Lease through coordination.k8s.io/v1, as client-go's `LeaseLock` uses it: get,
 * create (409: another candidate created it first) and replace guarded by the resourceVersion read
 * (409: another candidate wrote it since). A replace sends the whole object last read with a new
 * spec, so labels and annotations others set survive. Times go out as metav1.MicroTime, which the
 * API server parses with exactly six fraction digits (client-node's `V1MicroTime` writes them).
 */
import { V1MicroTime, type CoordinationV1Api, type V1Lease, type V1LeaseSpec } from '@kubernetes/client-node';
import type { LeaseRecord } from '../../core/lease-fence.js';
import type { LeaseLock, LeaseSpecWrite } from '../../ports/lease-lock.js';
import { describeApiError, isAlreadyExists, isConflict } from './api-errors.js';
import { getOrUndefined } from './reads.js';

export interface LeaseName {
  name: string;
  namespace: string;
}

/** A MicroTime read back: client-node hands it over as the server's string. */
function epochMs(value: unknown): number | undefined {
  if (value instanceof Date) return value.getTime();
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

export function toLeaseRecord(lease: V1Lease): LeaseRecord {
  const spec = lease.spec ?? {};
  const record: LeaseRecord = { resourceVersion: lease.metadata?.resourceVersion ?? '' };
  if (spec.holderIdentity !== undefined) record.holderIdentity = spec.holderIdentity;
  if (spec.leaseDurationSeconds !== undefined) record.leaseDurationSeconds = spec.leaseDurationSeconds;
  if (spec.leaseTransitions !== undefined) record.leaseTransitions = spec.leaseTransitions;
  const acquired = epochMs(spec.acquireTime);
  if (acquired !== undefined) record.acquireTime = acquired;
  const renewed = epochMs(spec.renewTime);
  if (renewed !== undefined) record.renewTime = renewed;
  return record;
}

export function toLeaseSpec(spec: LeaseSpecWrite): V1LeaseSpec {
  return {
    holderIdentity: spec.holderIdentity,
    leaseDurationSeconds: spec.leaseDurationSeconds,
    acquireTime: new V1MicroTime(spec.acquireTime),
    renewTime: new V1MicroTime(spec.renewTime),
    leaseTransitions: spec.leaseTransitions,
  };
}

export class KubernetesLeaseLock implements LeaseLock {
  /** The object last read: a replace keeps its metadata. */
  private last: V1Lease | undefined;
  private readonly lease: LeaseName;

  constructor(
    private readonly coordination: CoordinationV1Api,
    { name, namespace }: LeaseName,
  ) {
    this.lease = { name, namespace };
  }

  async get(): Promise<LeaseRecord | undefined> {
    this.last = await getOrUndefined(`lease ${this.describe()}`, () => this.coordination.readNamespacedLease(this.lease));
    return this.last && toLeaseRecord(this.last);
  }

  async create(spec: LeaseSpecWrite): Promise<'ok' | 'conflict'> {
    const body: V1Lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { ...this.lease }, spec: toLeaseSpec(spec) };
    try {
      this.last = await this.coordination.createNamespacedLease({ namespace: this.lease.namespace, body });
      return 'ok';
    } catch (error) {
      if (isAlreadyExists(error)) return 'conflict';
      throw new Error(`creating lease ${this.describe()} failed: ${describeApiError(error)}`, { cause: error });
    }
  }

  async update(spec: LeaseSpecWrite, resourceVersion: string): Promise<'ok' | 'conflict'> {
    const read = this.last?.metadata?.resourceVersion === resourceVersion ? this.last : undefined;
    const body: V1Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      ...read,
      metadata: { ...read?.metadata, ...this.lease, resourceVersion },
      spec: { ...read?.spec, ...toLeaseSpec(spec) },
    };
    try {
      this.last = await this.coordination.replaceNamespacedLease({ ...this.lease, body });
      return 'ok';
    } catch (error) {
      // 409: someone wrote it since our read. A Lease deleted since is created by the PUT (AllowCreateOnUpdate).
      if (isConflict(error)) return 'conflict';
      throw new Error(`replacing lease ${this.describe()} failed: ${describeApiError(error)}`, { cause: error });
    }
  }

  private describe(): string {
    return `${this.lease.namespace}/${this.lease.name}`;
  }
}
