/** How a failing scenario is shown: its seed and mode, how to replay it, and the first violations. */
import type { ScenarioResult } from './scenario.js';

export function replayCommand(result: Pick<ScenarioResult, 'seed' | 'mode'>): string {
  return `npm run soak -- --seed ${result.seed}${result.mode === 'attacher' ? ' --mode attacher' : ''}`;
}

export function describeFailure(result: Pick<ScenarioResult, 'seed' | 'mode' | 'theme' | 'violations'>): string[] {
  return [
    `seed ${result.seed} (${result.mode} mode, ${result.theme} theme): ${result.violations.length} violation(s) — replay with: ${replayCommand(result)}`,
    ...result.violations.slice(0, 8).map((v) => `  invariant ${v.invariant} at ${v.step}: ${v.message}`),
  ];
}
