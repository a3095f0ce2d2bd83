/**
 * A6, the lease fence's bound (docs/lease-fence.md): none of our AttachVolume or DetachVolume calls
 * reaches EC2 once another holder has held the sidecar's Lease for the re-read bound (5 s, the
 * sidecar's retry period) or longer. A pass that confirmed the Lease less than that ago may still
 * make its call, so a younger foreign Lease is no violation. Judged just before EC2 carries out
 * each call, on the Lease as the API server holds it at that instant; only fault worlds where no
 * other EC2 writer runs while the Lease stands wire it, so every call judged is ours.
 */
import type { Violation } from '../checks.js';

interface LeaseSight {
  holderIdentity?: string;
  /** When the holder took it (epoch ms), as the Lease says. */
  acquireTime?: number;
}

export interface LeaseBound {
  /** Our fence's identity: the holder we are. */
  ours: string;
  /** The fence's re-read bound (FENCE_REREAD_MS). */
  boundMs: number;
}

export function callBesideForeignLease(lease: LeaseSight | undefined, bound: LeaseBound, at: number, call: string): Violation[] {
  const holder = lease?.holderIdentity ?? '';
  if (holder === '' || holder === bound.ours || lease?.acquireTime === undefined) return [];
  const heldFor = at - lease.acquireTime;
  if (heldFor < bound.boundMs) return [];
  return [
    {
      invariant: 'A6',
      message: `${call} reached EC2 while ${holder} had held the sidecar's Lease for ${heldFor} ms (bound ${bound.boundMs} ms)`,
    },
  ];
}

/** A Lease object's spec as the sandbox stores it (MicroTime strings), for the checker. */
export function leaseSight(lease: { spec?: { holderIdentity?: string; acquireTime?: string } } | undefined): LeaseSight | undefined {
  if (lease === undefined) return undefined;
  const acquired = Date.parse(lease.spec?.acquireTime ?? '');
  return {
    ...(lease.spec?.holderIdentity === undefined ? {} : { holderIdentity: lease.spec.holderIdentity }),
    ...(Number.isNaN(acquired) ? {} : { acquireTime: acquired }),
  };
}
