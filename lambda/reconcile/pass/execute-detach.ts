/**
 * One detach. It goes ahead only if this pass removed the volume from the node's reported list
 * (forced ones too), and only if a live read of the node right before DetachVolume still shows
 * it unmounted (non-forced: the kubelet may have mounted it again meanwhile) and not listed again (another
 * pass may have listed it since the unreport). That read comes after the intent is recorded:
 * a pass that reads the record later sees the detach and does not list the volume (invariant 5).
 */
import type { DetachAction } from '../../core/actions.js';
import { nodeOfAttachment } from '../../core/detach-decision.js';
import { abandonOperation, completeDetach, failOperation, leaveInProgress } from '../../core/transitions.js';
import { lockKey, pairKey } from '../../core/types.js';
import type { DetachOutcome } from '../../ports/block-storage.js';
import type { PassContext } from './context.js';
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
  if (planned.requiresUnreport && !ctx.nodeStatus.wasUnreported(planned.volumeId, planned.nodeName)) {
    return result('deferred', "not removed from the node's reported list: detaching now could pull a volume the kubelet uses");
  }
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
  const stillUnused = await unusedRightNow(ctx, planned);
  if (stillUnused !== true) {
    await finish(onRecord((r) => abandonOperation(r, operationId, ctx.deps.clock())));
    return result('deferred', stillUnused);
  }

  const calledAt = ctx.deps.clock();
  const outcome = await ctx.deps.blockStorage.detach({ volumeId: action.volumeId, instanceId, force: action.ec2Force });
  ctx.touched.add(pairKey(action.volumeId, action.nodeName));
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

/**
 * True, or why the detach must wait. Forced detaches do not look at volumesInUse: the node cannot be trusted to answer.
 * A node object already gone when the pass read it was judged by the last word on record; while it
 * stays gone no kubelet can list, so nothing newer can come (waiting would leak the attachment).
 */
async function unusedRightNow(ctx: PassContext, action: DetachAction): Promise<true | string> {
  const unmounted = action.trigger === 'unmounted';
  const unreported = ctx.nodeStatus.wasUnreported(action.volumeId, action.nodeName);
  if (!unmounted && !unreported) return true;
  try {
    const live = await ctx.deps.cluster.liveVolumes(action.nodeName);
    if (live === undefined) {
      const judgedWithoutNode = nodeOfAttachment(ctx.desired.nodes.get(action.nodeName), action) === undefined;
      return !unmounted || judgedWithoutNode || 'the node disappeared before the detach; the next pass decides again';
    }
    if (unreported && live.attached.includes(action.uniqueName)) return 'listed on the node again since this pass unreported it';
    if (unmounted && live.inUse.includes(action.uniqueName)) return 'mounted again since the pass read the node';
    return true;
  } catch (error) {
    // A forced detach does not wait on a node that cannot answer (DESIGN §6); an unmounted one does.
    return unmounted ? `could not re-check volumesInUse: ${String(error)}` : true;
  }
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
  await ctx.reports.detached(ctx, action);
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
  const options = { ec2MayStillBeWorking: outcome.kind === 'transient' };
  await finish(onRecord((r) => failOperation(r, operationId, outcome.message, now, ctx.deps.settings.plan.backoff, options)));
  await ctx.reports.detachFailed(ctx, action, outcome.message);
  return result('failed', `${outcome.kind}: ${outcome.message}`, { throttled: outcome.kind === 'throttled' });
}
