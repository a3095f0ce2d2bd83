/** How a failing scenario is shown: its seed and mode, how to replay it, and the first violations. */
import { createHash } from 'node:crypto';
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

/** One hash of everything a seed did and concluded: two runs of a seed agree exactly when their digests do. */
export function outcomeDigest(result: Pick<ScenarioResult, 'trace' | 'outcomes' | 'violations' | 'converged'>): string {
  const text = JSON.stringify([result.trace, result.outcomes, result.violations, result.converged]);
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
