/**
 * Intent before action: an operation is written to the volume's record (taking its lock, with
 * the multi-attach check in the same conditional write) before EC2 is called. When another pass
 * changed the record first, EC2 is asked about the volume again, the volume is re-planned on the
 * fresh record and observation, and the operation started only if the plan still asks for it.
 */
import type { AttachAction, DetachAction } from '../../core/actions.js';
import { beginOperation, type BeginOperationInput } from '../../core/transitions.js';
import type { VolumeRecord } from '../../core/types.js';
import type { PassContext } from './state.js';
import { observeVolume } from './observe.js';
import { writeRecord } from './records.js';

type OperationAction = AttachAction | DetachAction;

export type Started<A extends OperationAction> =
  { ok: true; record: VolumeRecord; operationId: string; action: A } | { ok: false; outcome: 'deferred'; detail: string };

const REPLANS = 2;

export async function startOperation<A extends OperationAction>(
  ctx: PassContext,
  action: A,
  input: (action: A) => Omit<BeginOperationInput, 'operationId'>,
): Promise<Started<A>> {
  let current = action;
  for (let attempt = 0; attempt <= REPLANS; attempt++) {
    const operationId = ctx.deps.newId();
    const now = ctx.deps.clock();
    const step = (record: VolumeRecord | undefined) =>
      beginOperation(record, { ...input(current), operationId }, now, ctx.deadline.leaseMs(ctx.deps.settings.plan));
    const written = await writeRecord(ctx.deps.store, ctx.actual, action.volumeId, ctx.actual.get(action.volumeId), step, { attempts: 1 });
    if (written.ok) return { ok: true, record: written.record, operationId, action: current };
    if (written.why === 'refused') return { ok: false, outcome: 'deferred', detail: written.reason };
    // Another invocation acted on this volume since the pass looked: what EC2 said then is stale,
    // so ask again before deciding (never an AttachVolume from a stale observation, invariant 6);
    // the instance too, when the attach comes to it.
    ctx.seenInstances.delete(current.instanceId);
    await observeVolume(ctx, action.volumeId);
    const again = ctx.replan(action.volumeId).find((a): a is A => a.kind === action.kind && a.nodeName === action.nodeName);
    if (again === undefined)
      return { ok: false, outcome: 'deferred', detail: 'another pass changed the volume; the plan no longer asks for this' };
    current = again;
  }
  return { ok: false, outcome: 'deferred', detail: `${action.volumeId} kept changing underneath this pass` };
}
