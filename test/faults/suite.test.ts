/** How the fault suites' seeds are chosen and cut into one vitest file per slice. */
import { describe, expect, it } from 'vitest';
import { seedRange, sliceOf } from './suite.js';

describe('seedRange', () => {
  it('runs 200 controller-mode and 40 attacher-mode seeds from 1 by default', () => {
    expect(seedRange('controller', {})).toEqual({ first: 1, count: 200 });
    expect(seedRange('attacher', {})).toEqual({ first: 1, count: 40 });
  });

  it('takes FAULT_SEEDS for both modes, FAULT_ATTACHER_SEEDS for attacher mode, FAULT_FIRST_SEED for the start', () => {
    expect(seedRange('controller', { FAULT_SEEDS: '30', FAULT_FIRST_SEED: '5' })).toEqual({ first: 5, count: 30 });
    expect(seedRange('attacher', { FAULT_SEEDS: '30' })).toEqual({ first: 1, count: 30 });
    expect(seedRange('attacher', { FAULT_SEEDS: '30', FAULT_ATTACHER_SEEDS: '8' })).toEqual({ first: 1, count: 8 });
  });
});

describe('sliceOf', () => {
  it('cuts the range into slices that cover every seed exactly once', () => {
    for (const count of [0, 1, 3, 30, 40, 200]) {
      const seeds = [0, 1, 2, 3].flatMap((index) => {
        const { first, count: n } = sliceOf({ first: 7, count }, index, 4);
        return Array.from({ length: n }, (_, i) => first + i);
      });
      expect(seeds).toEqual(Array.from({ length: count }, (_, i) => 7 + i));
    }
  });

  it('gives 200 seeds as four slices of 50', () => {
    expect([0, 1, 2, 3].map((index) => sliceOf({ first: 1, count: 200 }, index, 4))).toEqual([
      { first: 1, count: 50 },
      { first: 51, count: 50 },
      { first: 101, count: 50 },
      { first: 151, count: 50 },
    ]);
  });
});
