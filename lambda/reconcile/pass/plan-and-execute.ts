/**
 * The part every pass shares once its inputs are loaded: plan (pure, from the core), write the
 * facts the plan asked for, execute, report, and sum up what happened.
 */
import type { Plan } from '../../core/actions.js';
import { notAttached } from '../../core/convergence.js';
import { plan } from '../../core/plan.js';
import type { ActualState, DesiredState, VolumeId } from '../../core/types.js';
import type { PassContext } from './context.js';
import { Deadline } from './deadline.js';
import { executePlan } from './execute.js';
import { claimMassDetachWindow } from './mass-detach-window.js';
import { controllerReports } from '../controller/reports.js';
import type { ModeReports } from './mode.js';
import { recordFacts } from './facts.js';
import { NodeStatusUpdater } from '../controller/node-status.js';
import { removeIfEmpty } from './records.js';
import type { ActionResult, Budget, PassReport, ReconcileDeps } from './types.js';

export function createPassContext(
  deps: ReconcileDeps,
  budget: Budget,
  desired: DesiredState,
  actual: ActualState,
  pvNames: Map<VolumeId, string>,
  reports: ModeReports = controllerReports,
): PassContext {
  const pass: Omit<PassContext, 'nodeStatus' | 'replan'> = {
    deps,
    deadline: new Deadline(budget, deps.clock, deps.settings.reserveMs),
    desired,
    actual,
    observations: {},
    seenInstances: new Map(),
    pvNames,
    touched: new Set(),
    reportErrors: [],
    reports,
  };
  const ctx: PassContext = Object.assign(pass, {
    nodeStatus: new NodeStatusUpdater(pass, pass.deadline.leaseMs(deps.settings.plan)),
    replan: (volumeId: VolumeId) => replanVolume(ctx, volumeId),
  });
  return ctx;
}

/** The plan for one volume on the records as they are now (after a conflicting write). */
function replanVolume(ctx: PassContext, volumeId: VolumeId): Plan['actions'] {
  const record = ctx.actual.get(volumeId);
  const actual: ActualState = new Map(record === undefined ? [] : [[volumeId, record]]);
  // A full pass may detach from any node (gone ones too); a targeted pass only from the nodes it read.
  const nodes = ctx.desired.scope?.nodes ?? [...new Set([...ctx.desired.nodes.keys(), ...Object.keys(record?.attachments ?? {})])];
  const desired: DesiredState = { ...ctx.desired, scope: { volumes: [volumeId], nodes } };
  return plan(desired, actual, ctx.observations, ctx.deps.clock(), ctx.deps.settings.plan).actions.filter((a) => a.volumeId === volumeId);
}

export interface Executed {
  plan: Plan;
  results: ActionResult[];
}

/** A pass that planned nothing (a takeover still under way). */
export const NOTHING_EXECUTED: Executed = { plan: { actions: [], heldBack: [] }, results: [] };

export async function planAndExecute(ctx: PassContext, dryRun: boolean): Promise<Executed> {
  const planned = plan(ctx.desired, ctx.actual, ctx.observations, ctx.deps.clock(), ctx.deps.settings.plan);
  ctx.deps.log.info('planned', {
    actions: planned.actions.length,
    heldBack: planned.heldBack.length,
    deferred: planned.deferred?.length ?? 0,
  });
  for (const action of planned.actions)
    ctx.deps.log.debug('action', { kind: action.kind, volumeId: action.volumeId, nodeName: action.nodeName, reason: action.reason });
  for (const held of planned.heldBack)
    ctx.deps.log.warn('detach held back', { volumeId: held.action.volumeId, nodeName: held.action.nodeName, reason: held.reason });
  if (dryRun) return { plan: planned, results: [] };
  const windowed = await claimMassDetachWindow(ctx, planned);
  await recordFacts(ctx, windowed.detachRequests ?? []);
  const results = await executePlan(ctx, windowed);
  await ctx.reports.afterExecute(ctx);
  await forgetEmptyRecords(ctx);
  return { plan: windowed, results };
}

/**
 * Records EC2 corrected to nothing (e.g. every attachment gone with a terminated instance) are
 * deleted once the node reports no longer need them; records holding any backoff stay.
 */
async function forgetEmptyRecords(ctx: PassContext): Promise<void> {
  for (const record of [...ctx.actual.values()]) await removeIfEmpty(ctx.deps.store, ctx.actual, record);
}

export interface Summary {
  passId: string;
  kind: PassReport['kind'];
  startedAt: number;
  dryRun: boolean;
  clusterComplete: boolean;
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
    skipped: ctx.desired.skipped,
    notAttached: missing,
    converged: !workLeft && summary.clusterComplete && ctx.desired.skipped.length === 0 && missing.length === 0,
  };
}
