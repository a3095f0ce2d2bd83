/** GCRA's arithmetic: a burst at once, then one slot per 1/rate, and a full bucket after a quiet spell. */
import { describe, expect, it } from 'vitest';
import { checkBucketSize, reserveSlot, unlimited } from '../../lambda/adapters/ec2/rate-limit.js';

const RATE_5_BURST_3 = { ratePerSecond: 5, burst: 3 };

describe('reserveSlot (GCRA)', () => {
  it.each([
    // name, stored TAT, now, slot, TAT after
    ['never used: now, one interval booked', undefined, 1_000, 1_000, 1_200],
    ['a TAT in the past is a full bucket', 400, 1_000, 1_000, 1_200],
    ['inside the burst: still now', 1_400, 1_000, 1_000, 1_600],
    ['the burst spent (TAT = now + burst·T): one interval on', 1_600, 1_000, 1_200, 1_800],
    ['deep in debt: the slot is (burst − 1)·T before the TAT', 5_000, 1_000, 4_600, 5_200],
  ])('%s', (_name, tat, now, slot, next) => {
    expect(reserveSlot(tat, now, RATE_5_BURST_3)).toEqual({ slot, tat: next });
  });

  it('a queue of callers at one instant: burst at once, then 1/rate apart, in order', () => {
    let tat: number | undefined;
    const slots = Array.from({ length: 6 }, () => {
      const reservation = reserveSlot(tat, 0, RATE_5_BURST_3);
      tat = reservation.tat;
      return reservation.slot;
    });
    expect(slots).toEqual([0, 0, 0, 200, 400, 600]);
  });

  it('over any window W, at most burst + rate·W slots (callers arriving at random-looking times)', () => {
    const size = { ratePerSecond: 4, burst: 20 };
    let tat: number | undefined;
    const slots = Array.from({ length: 400 }, (_, i) => {
      const reservation = reserveSlot(tat, (i * 7_919) % 60_000, size);
      tat = reservation.tat;
      return reservation.slot;
    }).sort((a, b) => a - b);
    for (const start of slots) {
      for (const windowMs of [0, 1_000, 10_000, 60_000]) {
        const inWindow = slots.filter((s) => s >= start && s <= start + windowMs).length;
        expect(inWindow).toBeLessThanOrEqual(size.burst + (size.ratePerSecond * windowMs) / 1000 + 1e-9);
      }
    }
  });

  it.each([
    ['a zero rate', 0, 1],
    ['a burst below one', 1, 0],
    ['a fractional burst', 1, 1.5],
  ])('refuses %s', (_name, ratePerSecond, burst) => {
    expect(() => checkBucketSize('AttachVolume', { ratePerSecond, burst })).toThrow(RangeError);
  });

  it('unlimited never waits', async () => {
    await expect(unlimited.acquire('AttachVolume')).resolves.toBeUndefined();
  });
});
