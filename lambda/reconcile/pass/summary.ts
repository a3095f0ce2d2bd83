/**
 * What a pass reports: what it planned and what became of it, and whether it converged (README,
 * "Exit codes and convergence").
 */
import { notAttached } from '../../core/convergence.js';
import { isKubernetesForbidden } from './refused.js';
import type { PassContext } from './state.js';
import type { Executed } from './plan-and-execute.js';
import type { ActionResult, PassReport } from './types.js';

export interface Summary {
  passId: string;
  kind: PassReport['kind'];
  startedAt: number;
  dryRun: boolean;
  clusterComplete: boolean;
  /** Nothing was listed, but a live watcher covers the cluster. */
  covered?: boolean;
  clusterError?: string;
  verified: boolean;
  seeded: boolean;
  problems: PassReport['problems'];
  unwantedAttachments?: number;
}

/** A conflict whose volume left its old node and was attached where the pod waits, in this same pass (execute.ts). */
function attachedInPass(results: readonly ActionResult[], conflict: Pick<ActionResult, 'volumeId' | 'nodeName'>): boolean {
  return results.some(
    (r) => r.kind === 'attach' && r.outcome === 'ok' && r.volumeId === conflict.volumeId && r.nodeName === conflict.nodeName,
  );
}

export function summarize(ctx: PassContext, summary: Summary, executed: Executed): PassReport {
  const { plan: planned, results } = executed;
  const actualAttachments = [...ctx.actual.values()].reduce((n, r) => n + Object.keys(r.attachments).length, 0);
  // Work remains while anything waits: held back, deferred by the plan, not done, or a pod blocked by Multi-Attach.
  const workLeft =
    planned.heldBack.length > 0 ||
    (planned.deferred ?? []).length > 0 ||
    results.some((r) => r.outcome !== 'ok') ||
    planned.actions.some((a) => a.kind === 'multiAttachConflict' && !attachedInPass(results, a)) ||
    (summary.dryRun && planned.actions.length > 0);
  // Every action may have succeeded and still a pod lacks its volume (a stuck attach was just detached).
  const missing = notAttached(ctx.desired, ctx.actual);
  return {
    ...summary,
    durationMs: ctx.deps.clock() - summary.startedAt,
    desiredAttachments: ctx.desired.attachments.length,
    actualAttachments,
    actions: planned.actions,
    heldBack: planned.heldBack,
    deferred: planned.deferred ?? [],
    results,
    expiredOperations: planned.actions.filter((a) => a.kind === 'resolve').length,
    reportErrors: ctx.reportErrors,
    // Refused calls: EC2's, the status writes', and the cluster read's (which leaves the pass with nothing read).
    unauthorizedCalls:
      results.filter((r) => r.unauthorized === true).length +
      ctx.reportErrors.filter(isKubernetesForbidden).length +
      (isKubernetesForbidden(summary.clusterError) ? 1 : 0),
    skipped: ctx.desired.skipped,
    notAttached: missing,
    converged:
      !workLeft && (summary.clusterComplete || summary.covered === true) && ctx.desired.skipped.length === 0 && missing.length === 0,
  };
}
