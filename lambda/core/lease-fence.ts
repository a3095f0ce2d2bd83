/**
 * The lease fence (docs/lease-fence.md): we hold the leader-election Lease of the EBS CSI
 * `csi-attacher` sidecar so that it stays a standby. Its rules follow client-go's
 * `tools/leaderelection`: a lease is valid while the observer's own clock has not passed the
 * moment it last saw the record change plus the record's `leaseDurationSeconds`; nobody trusts the
 * holder's `renewTime`.
 */

export interface LeaseRecord {
  resourceVersion: string;
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  leaseTransitions?: number;
  /** Epoch ms; a renewal keeps it (client-go copies the old record's), a take sets it anew. */
  acquireTime?: number;
}

/** When this observer first saw the record at `resourceVersion` (its own clock). */
export interface LeaseObservation {
  resourceVersion: string;
  seenAt: number;
}

export type LeaseDecision =
  { kind: 'create'; why: string } | { kind: 'renew'; why: string } | { kind: 'take'; why: string } | { kind: 'wait'; why: string };

/** The observation to keep after reading `lease`: the old one while the record is unchanged (client-go's `observedTime`). */
export function observe(lease: LeaseRecord, previous: LeaseObservation | undefined, now: number): LeaseObservation {
  return previous?.resourceVersion === lease.resourceVersion ? previous : { resourceVersion: lease.resourceVersion, seenAt: now };
}

/** client-go's `isLeaseValid`: the record's own duration, counted on the observer's clock from when it saw the record. */
export function leaseValid(lease: LeaseRecord, observation: LeaseObservation, now: number): boolean {
  return observation.seenAt + (lease.leaseDurationSeconds ?? 0) * 1000 > now;
}

export function decideLease(
  lease: LeaseRecord | undefined,
  observation: LeaseObservation | undefined,
  identity: string,
  now: number,
): LeaseDecision {
  if (lease === undefined) return { kind: 'create', why: 'no lease yet' };
  const holder = lease.holderIdentity ?? '';
  if (holder === identity) return { kind: 'renew', why: 'we hold it' };
  if (holder === '') return { kind: 'take', why: 'the lease has no holder' };
  const seen = observe(lease, observation, now);
  if (leaseValid(lease, seen, now)) {
    const left = Math.ceil((seen.seenAt + (lease.leaseDurationSeconds ?? 0) * 1000 - now) / 1000);
    return { kind: 'wait', why: `held by ${holder}; expires in ${left} s unless renewed` };
  }
  return { kind: 'take', why: `${holder} has not renewed for ${lease.leaseDurationSeconds ?? 0} s` };
}

/** What we wrote last: `writtenAt` is our clock read before the write was sent, so no standby saw it earlier. */
export interface OurLease {
  writtenAt: number;
  durationSeconds: number;
}

/**
 * Before an EC2 mutating call: `held` while our last record is valid with `marginMs` to spare
 * (a request in flight, clock rate); `check` when it must be read and renewed first; `lost` when
 * we hold nothing.
 */
export function fenceStatus(ours: OurLease | undefined, now: number, marginMs: number): 'held' | 'check' | 'lost' {
  if (ours === undefined) return 'lost';
  return ours.writtenAt + ours.durationSeconds * 1000 - marginMs > now ? 'held' : 'check';
}
