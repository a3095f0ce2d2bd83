/**
 * The lease fence (docs/lease-fence.md): we hold the leader-election Lease of the EBS CSI
 * `csi-attacher` sidecar so that it stays a standby. Its rules follow client-go's
 * `tools/leaderelection`: a lease is valid while the observer's own clock has not passed the
 * moment it first saw the record unchanged plus the record's `leaseDurationSeconds`; nobody trusts
 * the holder's `renewTime`. Our observer is every invocation together: the observation lives in
 * the store (core/attacher/handover.ts), so a cold invocation continues the count of a warm one.
 */

export interface LeaseRecord {
  resourceVersion: string;
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  leaseTransitions?: number;
  /** Epoch ms; a renewal keeps it (client-go copies the old record's), a take sets it anew. */
  acquireTime?: number;
  /** Epoch ms of the holder's clock: shown to operators, never trusted. */
  renewTime?: number;
}

/** A record as first seen unchanged (`seenAt`, the observer's clock), with what it said for the explanation. */
export interface LeaseObservation {
  resourceVersion: string;
  seenAt: number;
  holder?: string;
  durationSeconds?: number;
  renewTime?: number;
}

export type LeaseDecision =
  | { kind: 'create'; why: string }
  | { kind: 'renew'; why: string }
  | { kind: 'take'; why: string }
  | { kind: 'wait'; holder: string; why: string }
  /** No Lease, and we were not told that no sidecar can hold one: nothing is created, nothing acts. */
  | { kind: 'absent'; why: string };

/** What to do when there is no Lease at all: client-go creates it; the fence refuses unless told the sidecar is gone. */
export type WhenAbsent = 'create' | 'refuse';

/** The observation to keep after reading `lease`: the old one while the record is unchanged (client-go's `observedTime`). */
export function observe(lease: LeaseRecord, previous: LeaseObservation | undefined, now: number): LeaseObservation {
  if (previous?.resourceVersion === lease.resourceVersion) return previous;
  return {
    resourceVersion: lease.resourceVersion,
    seenAt: now,
    ...(lease.holderIdentity === undefined ? {} : { holder: lease.holderIdentity }),
    ...(lease.leaseDurationSeconds === undefined ? {} : { durationSeconds: lease.leaseDurationSeconds }),
    ...(lease.renewTime === undefined ? {} : { renewTime: lease.renewTime }),
  };
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
  whenAbsent: WhenAbsent = 'create',
): LeaseDecision {
  if (lease === undefined)
    return whenAbsent === 'create'
      ? { kind: 'create', why: 'no lease yet' }
      : { kind: 'absent', why: 'no Lease found: the sidecar runs elsewhere, under another name, or without leader election' };
  const holder = lease.holderIdentity ?? '';
  if (holder === identity) return { kind: 'renew', why: 'we hold it' };
  if (holder === '') return { kind: 'take', why: 'the lease has no holder' };
  const seen = observe(lease, observation, now);
  if (leaseValid(lease, seen, now)) {
    const left = Math.ceil((seen.seenAt + (lease.leaseDurationSeconds ?? 0) * 1000 - now) / 1000);
    return { kind: 'wait', holder, why: `held by ${holder}; expires in ${left} s unless renewed` };
  }
  return { kind: 'take', why: `${holder} has not renewed for ${lease.leaseDurationSeconds ?? 0} s` };
}
