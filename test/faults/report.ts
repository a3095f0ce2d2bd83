/** How a failing scenario is shown: its seed, how to replay it, and the first violations. */
import type { ScenarioResult } from './scenario.js';

export function describeFailure(result: ScenarioResult): string[] {
  return [
    `seed ${result.seed}: ${result.violations.length} violation(s) — replay with: npm run soak -- --seed ${result.seed}`,
    ...result.violations.slice(0, 8).map((v) => `  invariant ${v.invariant} at ${v.step}: ${v.message}`),
  ];
}
