import { describe, expect, it } from 'vitest';
import { leaseMsFor } from '../../lambda/core/operations.js';
import { MIN, T0 } from './builders.js';

describe('leaseMsFor: an operation holds its lock for what is left of the invocation plus the margin', () => {
  const margin = { leaseMarginMs: 30_000 };
  it.each([
    { left: '5 minutes', endsAt: T0 + 5 * MIN, lease: 5 * MIN + 30_000 },
    { left: '1 second', endsAt: T0 + 1_000, lease: 31_000 },
    { left: 'nothing', endsAt: T0, lease: 30_000 },
    { left: 'less than nothing (already past its end)', endsAt: T0 - MIN, lease: 30_000 },
  ])('$left left: $lease ms', ({ endsAt, lease }) => {
    expect(leaseMsFor(endsAt, T0, margin)).toBe(lease);
  });
});
