/**
 * Executes a plan (the plan itself is pure data from the core). Order: expired operations are
 * resolved, unreports handed to the mode (before any detach), then each volume's detaches and
 * attaches in plan order — so a rescheduled pod's volume leaves the old node before it is
 * attached to the new one — with at most `maxConcurrentOperations` volumes in flight, volumes a
 * pending pod waits for first (execute-order.ts); Multi-Attach warnings last.
 */
import pLimit from 'p-limit';
import type { Action, AttachAction, DetachAction, MultiAttachConflictAction, Plan } from '../../core/actions.js';
import type { VolumeId } from '../../core/types.js';
import type { PassContext } from './state.js';
import { executeAttach } from './execute-attach.js';
import { executeConflict } from './execute-conflict.js';
import { executeDetach } from './execute-detach.js';
import { volumesInPriority } from './execute-order.js';
import { executeResolve } from './execute-resolve.js';
import { observeVolume } from './observe.js';
import type { ActionResult } from './types.js';

export async function executePlan(ctx: PassContext, plan: Plan): Promise<ActionResult[]> {
  const limit = pLimit(ctx.deps.settings.maxConcurrentOperations);
  const tick = progressOf(ctx, plan.actions.filter((a) => a.kind === 'resolve' || a.kind === 'attach' || a.kind === 'detach').length);
  const of = <K extends Action['kind']>(kind: K) => plan.actions.filter((a): a is Extract<Action, { kind: K }> => a.kind === kind);
  const results: ActionResult[] = [];
  results.push(...(await Promise.all(of('resolve').map((a) => limit(() => guarded(ctx, a, () => executeResolve(ctx, a), tick))))));
  results.push(...(await ctx.mode.unreport(ctx, of('unreport'))));
  const volumes = volumesInPriority(
    plan.actions.filter((a): a is AttachAction | DetachAction => a.kind === 'attach' || a.kind === 'detach'),
  );
  const perVolume = await Promise.all(volumes.map((actions) => limit(() => runInOrder(ctx, actions, tick))));
  results.push(...perVolume.flat());
  // Only forced detaches (a dead or out-of-service node): after an ordinary one, EC2's reads may still lag (e2e/read-lag).
  const detached = new Set(
    perVolume.flat().flatMap((r) => (r.kind === 'detach' && r.outcome === 'ok' && r.forcedTrigger !== undefined ? [r.volumeId] : [])),
  );
  for (const conflict of of('multiAttachConflict')) results.push(...(await afterConflict(ctx, conflict, detached, tick)));
  return results;
}

/**
 * A Multi-Attach conflict whose volume this pass force-detached from its old node (a dead
 * instance's, an out-of-service node's): EC2 is asked again about the volume and, if the plan now attaches it where the pod
 * waits, that attach runs in this pass instead of the next full pass; otherwise the warning is
 * recorded as planned.
 */
async function afterConflict(
  ctx: PassContext,
  conflict: MultiAttachConflictAction,
  detached: ReadonlySet<VolumeId>,
  tick: () => void,
): Promise<ActionResult[]> {
  if (detached.has(conflict.volumeId) && ctx.deadline.canStart()) {
    await observeVolume(ctx, conflict.volumeId);
    const attach = ctx.replan(conflict.volumeId).filter((a): a is AttachAction => a.kind === 'attach' && a.nodeName === conflict.nodeName);
    if (attach.length > 0) return runInOrder(ctx, attach, tick);
  }
  return [await executeConflict(ctx, conflict)];
}

async function runInOrder(ctx: PassContext, actions: (AttachAction | DetachAction)[], tick: () => void): Promise<ActionResult[]> {
  const results: ActionResult[] = [];
  for (const action of actions) {
    const run = () => (action.kind === 'attach' ? executeAttach(ctx, action) : executeDetach(ctx, action));
    results.push(await guarded(ctx, action, run, tick));
  }
  return results;
}

/** Counts EC2-facing actions as they finish, for the caller's progress display. */
function progressOf(ctx: PassContext, total: number): () => void {
  let done = 0;
  return () => ctx.deps.progress?.('actions', ++done, total);
}

/** An unexpected error (store or API down) fails this action only; the rest of the pass goes on. */
async function guarded(ctx: PassContext, action: Action, run: () => Promise<ActionResult>, done: () => void): Promise<ActionResult> {
  try {
    return await run();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    ctx.deps.log.error('action failed', { kind: action.kind, volumeId: action.volumeId, nodeName: action.nodeName, error: detail });
    return { kind: action.kind, volumeId: action.volumeId, nodeName: action.nodeName, outcome: 'failed', detail };
  } finally {
    done();
  }
}
