/**
 * The end-to-end fault suites: seeded scenarios of concurrent passes with faults at every kind of
 * step and passes killed at random calls, DESIGN §11's invariants (attacher mode: A1–A5, see
 * sandbox/oracle/attacher/README.md) checked around every step and convergence at the end.
 * Each mode's seed range is cut into slices, one vitest file each (test/faults/suites/), so that
 * vitest's workers share the suite: files run side by side, the tests of one file do not.
 * A failing seed is printed with its replay command (`npm run soak -- --seed N [--mode attacher]`);
 * `npm run soak -- --seeds N` runs more.
 */
import { describe, expect, it } from 'vitest';
import { describeFailure } from './report.js';
import { startRig, type Mode } from './rig.js';
import { runScenario, type ScenarioResult } from './scenario.js';

export interface SeedRange {
  first: number;
  count: number;
}

/**
 * The seeds `npm test` runs: 200 controller-mode and 40 attacher-mode seeds from 1. FAULT_SEEDS
 * sets both counts, FAULT_ATTACHER_SEEDS the attacher one, FAULT_FIRST_SEED where both start.
 */
export function seedRange(mode: Mode, env: NodeJS.ProcessEnv = process.env): SeedRange {
  const count = mode === 'attacher' ? (env.FAULT_ATTACHER_SEEDS ?? env.FAULT_SEEDS ?? 40) : (env.FAULT_SEEDS ?? 200);
  return { first: Number(env.FAULT_FIRST_SEED ?? 1), count: Number(count) };
}

/** Slice `index` (from 0) of `slices` equal parts of the range; together the slices cover it once. */
export function sliceOf(range: SeedRange, index: number, slices: number): SeedRange {
  const start = Math.floor((index * range.count) / slices);
  const end = Math.floor(((index + 1) * range.count) / slices);
  return { first: range.first + start, count: end - start };
}

/** One vitest file's part of a mode's fault suite: slice `index` of `slices`. */
export function faultSuite(mode: Mode, index: number, slices: number): void {
  const { first, count } = sliceOf(seedRange(mode), index, slices);
  const replay = `npm run soak -- --seed N${mode === 'attacher' ? ' --mode attacher' : ''}`;
  // A machine loaded by other work takes seconds a seed: the budget grows with the count.
  const timeout = Math.max(900_000, count * 15_000);
  describe(`${mode}-mode fault scenarios, seeds ${first}..${first + count - 1}`, () => {
    const rig = startRig();
    it(
      'keeps every invariant at every step and converges once the faults stop',
      async () => {
        const results: ScenarioResult[] = [];
        for (let seed = first; seed < first + count; seed++) results.push(await runScenario(rig, seed, 8, mode));
        const failures = results.filter((r) => r.violations.length > 0);
        for (const failure of failures) console.error(describeFailure(failure).join('\n'));
        expect(
          failures.map((f) => f.seed),
          `${mode}-mode seeds whose invariants broke (replay: ${replay})`,
        ).toEqual([]);
        // The scenarios really exercise what they claim: passes were killed mid-way (judged over ten
        // seeds or more: a seed or two may kill nothing), and everything converged.
        if (count >= 10) expect(results.reduce((n, r) => n + r.kills, 0)).toBeGreaterThan(count / 10);
        expect(results.every((r) => r.converged)).toBe(true);
      },
      timeout,
    );
  });
}
