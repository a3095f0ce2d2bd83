/**
 * The end-to-end fault suite: seeded scenarios of concurrent passes with faults at every kind of
 * step and passes killed at random calls, DESIGN §11's invariants checked around every step and
 * convergence at the end. A failing seed is printed with its replay command
 * (`npm run soak -- --seed N`); `npm run soak -- --seeds N` runs more.
 */
import { describe, expect, it } from 'vitest';
import { startRig } from './rig.js';
import { runScenario, type ScenarioResult } from './scenario.js';
import { describeFailure } from './report.js';

/** Controller-mode seeds run by `npm test` (FAULT_SEEDS overrides): 200, about four minutes on one core of an idle machine. */
const SEEDS = Number(process.env.FAULT_SEEDS ?? 200);
const FIRST_SEED = Number(process.env.FAULT_FIRST_SEED ?? 1);

describe(`fault scenarios, seeds ${FIRST_SEED}..${FIRST_SEED + SEEDS - 1}`, () => {
  const rig = startRig();
  const results: ScenarioResult[] = [];

  it('keeps every invariant at every step and converges once the faults stop', async () => {
    for (let seed = FIRST_SEED; seed < FIRST_SEED + SEEDS; seed++) results.push(await runScenario(rig, seed));
    const failures = results.filter((r) => r.violations.length > 0);
    for (const failure of failures) console.error(describeFailure(failure).join('\n'));
    expect(
      failures.map((f) => f.seed),
      'seeds whose invariants broke (replay: npm run soak -- --seed N)',
    ).toEqual([]);
    // The scenarios really exercise what they claim: passes were killed mid-way, and everything converged.
    expect(results.reduce((n, r) => n + r.kills, 0)).toBeGreaterThan(SEEDS / 10);
    expect(results.every((r) => r.converged)).toBe(true);
  }, 900_000);
});
