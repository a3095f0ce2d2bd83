/**
 * One detach. The mode says whether it may go ahead twice: before the intent is written (controller
 * mode: only if this pass removed the volume from the node's reported list, forced detaches too),
 * and after it, right before DetachVolume (controller mode: a live read of the node still shows it
 * unmounted and not listed again). The second look comes after the intent is recorded: a pass that
 * reads the record later sees the detach and does not list the volume (invariant 5).
 */
import type { DetachAction } from '../../core/actions.js';
import { abandonOperation, completeDetach, failOperation, leaveInProgress } from '../../core/transitions.js';
import { lockKey } from '../../core/types.js';
import type { DetachOutcome } from '../../ports/block-storage.js';
import type { PassContext } from './state.js';
import { noteAttachment } from './observe.js';
import { startOperation } from './operation-start.js';
import { onRecord, removeIfEmpty, writeRecord, type Step } from './records.js';
import type { ActionResult, ResultOf } from './types.js';

const MIN_DETACH_MS = 2_000;

export async function executeDetach(ctx: PassContext, planned: DetachAction): Promise<ActionResult> {
  const forcedTrigger = planned.trigger === 'unmounted' || planned.trigger === 'released' ? undefined : planned.trigger;
  const result: ResultOf = (outcome, detail, extra = {}) => ({
    kind: 'detach',
    volumeId: planned.volumeId,
    nodeName: planned.nodeName,
    outcome,
    detail,
    ...(forcedTrigger === undefined ? {} : { forcedTrigger }),
    ...extra,
  });
  if (!ctx.deadline.canStart(MIN_DETACH_MS)) return result('deferred', 'no time left in this pass');
  const waits = ctx.mode.beforeDetach(ctx, planned);
  if (waits !== undefined) return result('deferred', waits);
  const started = await startOperation(ctx, planned, (action) => ({
    volumeId: action.volumeId,
    uniqueName: action.uniqueName,
    accessModes: ctx.actual.get(action.volumeId)?.accessModes ?? [],
    multiAttach: ctx.actual.get(action.volumeId)?.multiAttach ?? false,
    kind: 'detach',
    nodeName: action.nodeName,
    instanceId: action.instanceId,
    ec2Force: action.ec2Force,
  }));
  if (!started.ok) return result(started.outcome, started.detail);
  const { action, operationId, record } = started;
  const op = record.operations[lockKey(record, action.nodeName)];
  const instanceId = op?.instanceId ?? action.instanceId;
  const fence = { lockKey: lockKey(record, action.nodeName), operationId };
  const finish = (step: Step) => writeRecord(ctx.deps.store, ctx.actual, action.volumeId, ctx.actual.get(action.volumeId), step, { fence });
  // DetachVolume is asked for once the intent holds the lock, and sent on the mode's live re-check:
  // the EC2 budget's token is taken while the re-check runs. Not beside the intent: passes that lose
  // the lock race would each spend a token (under the watcher, several passes plan one detach).
  const confirmed = ctx.mode.confirmDetach(ctx, planned);
  const ready = confirmed.then((still) => (still === true ? undefined : still));
  const calledAt = ctx.deps.clock();
  const [outcome, stillUnused] = await Promise.all([
    ctx.deps.blockStorage.detach({ volumeId: action.volumeId, instanceId, force: action.ec2Force, ready }),
    confirmed,
  ]);
  if (stillUnused !== true) {
    await finish(onRecord((r) => abandonOperation(r, operationId, ctx.deps.clock())));
    return result('deferred', stillUnused);
  }
  ctx.mode.changed(action.volumeId, action.nodeName);
  if (outcome.kind === 'already-detached') return done(ctx, action, operationId, finish, result, undefined);
  if (outcome.kind !== 'started') return fail(ctx, action, operationId, outcome, finish, result);
  const waited = await ctx.deps.blockStorage.waitFor({
    volumeId: action.volumeId,
    instanceId,
    target: 'detached',
    deadline: ctx.deadline.waitUntil(ctx.deps.settings.maxDetachWaitMs),
  });
  const now = ctx.deps.clock();
  if (waited.reachedTarget) return done(ctx, action, operationId, finish, result, now - calledAt);
  await finish(onRecord((r) => leaveInProgress(r, operationId, now)));
  return result('deferred', `still ${waited.state} at the wait deadline; left for the next pass to resolve`);
}

async function done(
  ctx: PassContext,
  action: DetachAction,
  operationId: string,
  finish: (step: Step) => ReturnType<typeof writeRecord>,
  result: ResultOf,
  latencyMs: number | undefined,
): Promise<ActionResult> {
  noteAttachment(ctx, action.volumeId, { instanceId: action.instanceId, state: 'detached' });
  const written = await finish(onRecord((r) => completeDetach(r, operationId, ctx.deps.clock())));
  if (!written.ok) return result('failed', `detached, but the record could not be completed: ${written.reason}`);
  await ctx.mode.detached(ctx, action);
  await removeIfEmpty(ctx.deps.store, ctx.actual, written.record, ctx.deps.clock());
  return result('ok', `detached (${action.trigger})`, latencyMs === undefined ? {} : { latencyMs });
}

async function fail(
  ctx: PassContext,
  action: DetachAction,
  operationId: string,
  outcome: Exclude<DetachOutcome, { kind: 'started' | 'already-detached' }>,
  finish: (step: Step) => ReturnType<typeof writeRecord>,
  result: ResultOf,
): Promise<ActionResult> {
  const now = ctx.deps.clock();
  const options = { ec2MayStillBeWorking: outcome.kind === 'transient', longest: outcome.kind === 'unauthorized' };
  const error = outcome.kind === 'unauthorized' ? `${outcome.code}: ${outcome.message}` : outcome.message;
  await finish(onRecord((r) => failOperation(r, operationId, error, now, ctx.deps.settings.plan.backoff, options)));
  await ctx.mode.detachFailed(ctx, action, outcome.message);
  return result('failed', `${outcome.kind}: ${outcome.message}`, {
    throttled: outcome.kind === 'throttled',
    ...(outcome.kind === 'unauthorized' ? { unauthorized: true } : {}),
  });
}
