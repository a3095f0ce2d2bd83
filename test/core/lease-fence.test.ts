import { describe, expect, it } from 'vitest';
import { decideLease, fenceStatus, leaseValid, observe, type LeaseRecord } from '../../lambda/core/lease-fence.js';

const US = 'ebs-attach-detach';
const SIDECAR = 'ebs-csi-controller-6d9f-x2k4p';
const S = 1000;
const sidecar = (resourceVersion = '10'): LeaseRecord => ({ resourceVersion, holderIdentity: SIDECAR, leaseDurationSeconds: 15 });

describe('lease fence: taking the sidecar lease by client-go’s rule', () => {
  it.each<[string, LeaseRecord | undefined, { resourceVersion: string; seenAt: number } | undefined, number, string]>([
    ['no lease: create it', undefined, undefined, 0, 'create'],
    ['a lease with no holder (released on exit): take it', { resourceVersion: '3', holderIdentity: '' }, undefined, 0, 'take'],
    ['ours: renew it', { resourceVersion: '3', holderIdentity: US, leaseDurationSeconds: 180 }, undefined, 0, 'renew'],
    ['a live lease, first seen now: wait (never taken)', sidecar(), undefined, 100 * S, 'wait'],
    ['a live lease seen unchanged for 14 s of our clock: wait', sidecar(), { resourceVersion: '10', seenAt: 0 }, 14 * S, 'wait'],
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

  it("the record's own duration counts, on the observer's clock (renewTime is never read)", () => {
    const ours: LeaseRecord = { resourceVersion: '20', holderIdentity: US, leaseDurationSeconds: 180 };
    const seen = observe(ours, undefined, 1_000 * S);
    expect(leaseValid(ours, seen, 1_179 * S)).toBe(true);
    expect(leaseValid(ours, seen, 1_180 * S)).toBe(false);
    expect(observe(ours, seen, 1_100 * S)).toBe(seen);
  });
});

describe('lease fence: before an EC2 mutating call', () => {
  it.each([
    ['well within our record: held', 100 * S, 'held'],
    ['inside the margin: read and renew first', 170 * S, 'check'],
    ['past our record: read and renew first', 200 * S, 'check'],
  ])('%s', (_name, now, status) => {
    expect(fenceStatus({ writtenAt: 0, durationSeconds: 180 }, now, 15 * S)).toBe(status);
  });

  it('nothing written: lost', () => {
    expect(fenceStatus(undefined, 0, 15 * S)).toBe('lost');
  });
});
