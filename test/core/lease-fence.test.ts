import { describe, expect, it } from 'vitest';
import { decideLease, leaseValid, observe, type LeaseObservation, type LeaseRecord } from '../../lambda/core/lease-fence.js';

const US = 'ebs-attach-detach';
const SIDECAR = 'ebs-csi-controller-6d9f-x2k4p';
const S = 1000;
const sidecar = (resourceVersion = '10'): LeaseRecord => ({
  resourceVersion,
  holderIdentity: SIDECAR,
  leaseDurationSeconds: 15,
  renewTime: 3 * S,
});

describe('lease fence: taking the sidecar lease by client-go’s rule', () => {
  it.each<[string, LeaseRecord | undefined, LeaseObservation | undefined, number, string]>([
    ['no lease, as client-go: create it', undefined, undefined, 0, 'create'],
    ['a lease with no holder (released on exit): take it', { resourceVersion: '3', holderIdentity: '' }, undefined, 0, 'take'],
    ['ours: renew it', { resourceVersion: '3', holderIdentity: US, leaseDurationSeconds: 180 }, undefined, 0, 'renew'],
    ['a live lease, first seen now: wait (never taken)', sidecar(), undefined, 100 * S, 'wait'],
    ['a live lease seen unchanged for 14.999 s of our clock: wait', sidecar(), { resourceVersion: '10', seenAt: 0 }, 15 * S - 1, 'wait'],
    ['an expired lease, unchanged for its 15 s on our clock: take it', sidecar(), { resourceVersion: '10', seenAt: 0 }, 15 * S, 'take'],
    [
      'the holder renewed meanwhile (new version): the wait starts again',
      sidecar('11'),
      { resourceVersion: '10', seenAt: 0 },
      60 * S,
      'wait',
    ],
  ])('%s', (_name, lease, observation, now, kind) => {
    expect(decideLease(lease, observation, US, now).kind).toBe(kind);
  });

  it('the fence refuses a missing Lease unless told to create it, and says why', () => {
    expect(decideLease(undefined, undefined, US, 0, 'refuse')).toEqual({
      kind: 'absent',
      why: 'no Lease found: the sidecar runs elsewhere, under another name, or without leader election',
    });
    expect(decideLease(undefined, undefined, US, 0, 'create').kind).toBe('create');
  });

  it('a wait names the holder and when the record expires unless renewed', () => {
    expect(decideLease(sidecar(), { resourceVersion: '10', seenAt: 0 }, US, 3 * S)).toEqual({
      kind: 'wait',
      holder: SIDECAR,
      why: `held by ${SIDECAR}; expires in 12 s unless renewed`,
    });
  });

  it("the record's own duration counts, on the observer's clock (renewTime is never read)", () => {
    const ours: LeaseRecord = { resourceVersion: '20', holderIdentity: US, leaseDurationSeconds: 180, renewTime: 0 };
    const seen = observe(ours, undefined, 1_000 * S);
    expect(leaseValid(ours, seen, 1_179 * S)).toBe(true);
    expect(leaseValid(ours, seen, 1_180 * S)).toBe(false);
    expect(observe(ours, seen, 1_100 * S)).toBe(seen);
  });

  it('an observation keeps what the record said (holder, duration, renew time) for the explanation', () => {
    expect(observe(sidecar(), undefined, 7 * S)).toEqual({
      resourceVersion: '10',
      seenAt: 7 * S,
      holder: SIDECAR,
      durationSeconds: 15,
      renewTime: 3 * S,
    });
    expect(observe({ resourceVersion: '4' }, undefined, 7 * S)).toEqual({ resourceVersion: '4', seenAt: 7 * S });
  });
});
