/** A pass report that did nothing and converged: test doubles override what their case needs. */
import type { PassReport } from '../../lambda/reconcile/pass/types.js';

export function quietPassReport(overrides: Partial<PassReport> = {}): PassReport {
  return {
    passId: 'p',
    kind: 'targeted',
    startedAt: 0,
    durationMs: 1,
    dryRun: false,
    unauthorizedCalls: 0,
    clusterComplete: true,
    verified: false,
    seeded: false,
    desiredAttachments: 0,
    actualAttachments: 0,
    actions: [],
    heldBack: [],
    deferred: [],
    results: [],
    expiredOperations: 0,
    problems: [],
    reportErrors: [],
    skipped: [],
    notAttached: [],
    converged: true,
    ...overrides,
  };
}
