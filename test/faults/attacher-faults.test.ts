/**
 * The fault suite in attacher mode: the same seeded scenarios (faults at every kind of step,
 * passes killed at random calls) with kcm deciding what is attached, each seed in one of the
 * attacher themes (themes/index.ts: the plain world, a Lease taken over mid-pass, a deleting
 * object handed over from the sidecar), the attacher-mode invariants
 * (sandbox/oracle/attacher/README.md) checked around every step and convergence at the end.
 * Seed N here is always attacher mode; a failing seed prints its replay command
 * (`npm run soak -- --seed N --mode attacher`).
 */
import { describe, expect, it } from 'vitest';
import { startRig } from './rig.js';
import { runScenario, type ScenarioResult } from './scenario.js';
import { describeFailure } from './report.js';

/**
 * Seeds run by `npm test`: FAULT_ATTACHER_SEEDS, else FAULT_SEEDS (one count for each suite), else
 * 40 (about a minute next to the controller suite's 200: some four minutes for both on 2 cores).
 */
const SEEDS = Number(process.env.FAULT_ATTACHER_SEEDS ?? process.env.FAULT_SEEDS ?? 40);
const FIRST_SEED = Number(process.env.FAULT_FIRST_SEED ?? 1);
/** A machine loaded by other work takes several seconds a seed: the budget grows with the count. */
const TIMEOUT_MS = Math.max(900_000, SEEDS * 15_000);

describe(`attacher-mode fault scenarios, seeds ${FIRST_SEED}..${FIRST_SEED + SEEDS - 1}`, () => {
  const rig = startRig();
  const results: ScenarioResult[] = [];

  it(
    'keeps every attacher-mode invariant at every step and converges once the faults stop',
    async () => {
      for (let seed = FIRST_SEED; seed < FIRST_SEED + SEEDS; seed++) results.push(await runScenario(rig, seed, 8, 'attacher'));
      const failures = results.filter((r) => r.violations.length > 0);
      for (const failure of failures) console.error(describeFailure(failure).join('\n'));
      expect(
        failures.map((f) => f.seed),
        'attacher-mode seeds whose invariants broke (replay: npm run soak -- --seed N --mode attacher)',
      ).toEqual([]);
      expect(results.reduce((n, r) => n + r.kills, 0)).toBeGreaterThan(SEEDS / 10);
      expect(results.every((r) => r.converged)).toBe(true);
    },
    TIMEOUT_MS,
  );
});
