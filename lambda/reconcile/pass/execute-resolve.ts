/**
 * An operation whose lease ran out (its Lambda died or gave up waiting): ask EC2 what really
 * happened to this volume on the operation's instance and write that down, releasing the lock.
 */
import type { ResolveAction } from '../../core/actions.js';
import { resolveExpired } from '../../core/transitions.js';
import { lockKey } from '../../core/types.js';
import type { PassContext } from './state.js';
import { onRecord, writeRecord } from './records.js';
import type { ActionResult, ResultOf } from './types.js';

export async function executeResolve(ctx: PassContext, action: ResolveAction): Promise<ActionResult> {
  const result: ResultOf = (outcome, detail) => ({
    kind: 'resolve',
    volumeId: action.volumeId,
    nodeName: action.nodeName,
    outcome,
    detail,
  });
  if (!ctx.deadline.canStart()) return result('deferred', 'no time left in this pass');
  let observation;
  try {
    observation = (await ctx.deps.blockStorage.describeVolumes([action.volumeId])).get(action.volumeId);
  } catch (error) {
    return result('failed', `could not ask EC2: ${String(error)}`);
  }
  if (observation !== undefined) ctx.observations.volumes?.set(action.volumeId, observation);
  const op = action.operation;
  const view = observation?.exists === true ? observation.attachments.find((a) => a.instanceId === op.instanceId) : undefined;
  const record = ctx.actual.get(action.volumeId);
  const fence = record === undefined ? undefined : { lockKey: lockKey(record, op.nodeName), operationId: op.id };
  const written = await writeRecord(
    ctx.deps.store,
    ctx.actual,
    action.volumeId,
    record,
    onRecord((r) => resolveExpired(r, op.id, view, ctx.deps.clock(), ctx.deps.settings.plan.backoff)),
    fence === undefined ? {} : { fence },
  );
  if (!written.ok) return result(written.why === 'refused' ? 'deferred' : 'failed', written.reason);
  ctx.mode.changed(action.volumeId, op.nodeName);
  await ctx.mode.settled(ctx, action.volumeId, op.nodeName);
  return result('ok', `expired ${op.kind} ${op.id} settled: EC2 says ${view?.state ?? 'no attachment'}`);
}
