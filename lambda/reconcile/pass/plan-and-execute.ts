/**
 * The part every pass shares once its inputs are loaded: plan (pure, from the core), write the
 * facts the plan asked for, execute, let the mode report, and forget what EC2 emptied.
 */
import type { Plan } from '../../core/actions.js';
import { plan } from '../../core/plan.js';
import type { ActualState } from '../../core/types.js';
import type { PassContext } from './state.js';
import { executePlan } from './execute.js';
import { claimMassDetachWindow } from './mass-detach-window.js';
import { recordFacts } from './facts.js';
import { removeIfEmpty } from './records.js';
import type { ActionResult } from './types.js';

export interface Executed {
  plan: Plan;
  results: ActionResult[];
}

/** A pass that planned nothing (a takeover still under way). */
export const NOTHING_EXECUTED: Executed = { plan: { actions: [], heldBack: [] }, results: [] };

/** `planOn`: the records the plan reads, when the core says a part gives the same plan (a covered pass's scope). */
export async function planAndExecute(ctx: PassContext, dryRun: boolean, planOn: ActualState = ctx.actual): Promise<Executed> {
  const planned = plan(ctx.desired, planOn, ctx.observations, ctx.deps.clock(), ctx.deps.settings.plan);
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
  await ctx.mode.afterExecute(ctx);
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
