/**
 * One attach: the mode's go-ahead, intent, AttachVolume, a bounded wait for `attached`, then the
 * record and the mode's reports. An attach still `attaching` at the wait deadline stays
 * recorded with its lease ended, so the next pass resolves it against EC2; one EC2 does not show yet
 * (DescribeVolumes lags behind AttachVolume) stays `uncertain` until EC2 settles it.
 */
import type { AttachAction } from '../../core/actions.js';
import { attachStuck, leftoverAttachment, type StartedAttachment } from '../../core/observed.js';
import { settleAcceptedAttach } from '../../core/accepted-attach.js';
import { abandonOperation, completeAttach, failOperation } from '../../core/transitions.js';
import { lockKey, type Ec2Attachment } from '../../core/types.js';
import type { AttachOutcome, SeenInstance } from '../../ports/block-storage.js';
import type { PassContext } from './state.js';
import { desiredAttachment } from './context.js';
import { deviceClaims } from './device-claims.js';
import { noteAttachment, observeVolume } from './observe.js';
import { startOperation, type Started } from './operation-start.js';
import { onRecord, writeRecord, type Step } from './records.js';
import type { ActionResult, ResultOf } from './types.js';

/** A step needs at least this long to be started and written down. */
const MIN_ATTACH_MS = 2_000;

export async function executeAttach(ctx: PassContext, planned: AttachAction): Promise<ActionResult> {
  const result: ResultOf = (outcome, detail, extra = {}) => ({
    kind: 'attach',
    volumeId: planned.volumeId,
    nodeName: planned.nodeName,
    outcome,
    detail,
    ...extra,
  });
  if (!ctx.deadline.canStart(MIN_ATTACH_MS)) return result('deferred', 'no time left in this pass');
  // What must be in before AttachVolume, and what waits for what (each arrow one round trip):
  //   the mode's go-ahead (attacher mode: PV finalizer → VA finalizer, external-attacher's order)
  //   the intent (the volume's lock) → the device name's claim ‖ the budget's token (EC2 adapter)
  // The two chains run side by side: neither needs the other, the claim needs the intent's
  // operation id and lease, and the adapter sends AttachVolume only once the go-ahead is in
  // (`ready`). An intent the go-ahead refuses is abandoned before anything reaches EC2 (no backoff).
  const goAhead = ctx.mode.beforeAttach(ctx, planned);
  const started = await begin(ctx, planned).catch(async (error: unknown) => {
    await goAhead.catch(() => undefined);
    throw error;
  });
  if (!started.ok || started.action.instanceId !== planned.instanceId) {
    const refused = await goAhead;
    if (started.ok) await abandon(ctx, started);
    if (refused !== undefined) return result('failed', refused);
    return started.ok
      ? result('deferred', 'the plan moved the attach to another instance meanwhile')
      : result(started.outcome, started.detail);
  }
  const { action, operationId } = started;
  const fence = { lockKey: lockKey(started.record, action.nodeName), operationId };
  const finish = (step: Step) => writeRecord(ctx.deps.store, ctx.actual, action.volumeId, ctx.actual.get(action.volumeId), step, { fence });

  const lease = started.record.operations[fence.lockKey]?.leaseExpiresAt ?? ctx.deps.clock();
  const devices = deviceClaims(ctx, { volumeId: action.volumeId, instanceId: action.instanceId, operationId, expiresAt: lease });
  const calledAt = ctx.deps.clock();
  const seen = recentlySeen(ctx, action.instanceId);
  const [outcome, refused] = await Promise.all([
    ctx.deps.blockStorage.attach({
      volumeId: action.volumeId,
      instanceId: action.instanceId,
      devices,
      ready: goAhead,
      ...(seen ? { seen } : {}),
    }),
    goAhead,
  ]);
  if (refused !== undefined) {
    // Nothing was sent (the adapter waited for the go-ahead): the intent goes as if never written.
    await abandon(ctx, started);
    return result('failed', refused);
  }
  ctx.mode.changed(action.volumeId, action.nodeName);
  if (outcome.kind === 'started' || outcome.kind === 'already-attached') {
    return settle(ctx, action, operationId, outcome, calledAt, finish, result);
  }
  return fail(ctx, action, operationId, outcome, finish, result);
}

/** The attach's intent, written to the volume's record (operation-start.ts). */
function begin(ctx: PassContext, planned: AttachAction): Promise<Started<AttachAction>> {
  const desired = desiredAttachment(ctx, planned.volumeId, planned.nodeName);
  return startOperation(ctx, planned, (action) => ({
    volumeId: action.volumeId,
    uniqueName: action.uniqueName,
    accessModes: desired?.accessModes ?? [],
    multiAttach: action.multiAttach,
    kind: 'attach',
    nodeName: action.nodeName,
    instanceId: action.instanceId,
  }));
}

/** An intent nothing was sent for: its lock released, the attachment as it was. */
async function abandon(ctx: PassContext, started: Extract<Started<AttachAction>, { ok: true }>): Promise<void> {
  const { action, operationId, record } = started;
  const fence = { lockKey: lockKey(record, action.nodeName), operationId };
  const step = onRecord((r) => abandonOperation(r, operationId, ctx.deps.clock()));
  await writeRecord(ctx.deps.store, ctx.actual, action.volumeId, ctx.actual.get(action.volumeId), step, { fence });
}

/**
 * The instance as verification saw it, while that is younger than the lease margin: every lease ends
 * at least that long after its AttachVolume, so any device attached since the look is still claimed
 * in the store. Older, the adapter looks again.
 */
function recentlySeen(ctx: PassContext, instanceId: string): SeenInstance | undefined {
  const seen = ctx.seenInstances.get(instanceId);
  return seen !== undefined && ctx.deps.clock() - seen.at < ctx.deps.settings.plan.leaseMarginMs ? seen.instance : undefined;
}

async function settle(
  ctx: PassContext,
  action: AttachAction,
  operationId: string,
  outcome: StartedAttachment & { kind: 'started' | 'already-attached' },
  calledAt: number,
  finish: (step: Step) => ReturnType<typeof writeRecord>,
  result: ResultOf,
): Promise<ActionResult> {
  const device = outcome.device;
  // An attach the core judges stuck is not worth waiting for: the next pass detaches and retries it.
  const since = ctx.actual.get(action.volumeId)?.attachments[action.nodeName]?.since ?? calledAt;
  const waited = await ctx.deps.blockStorage.waitFor({
    volumeId: action.volumeId,
    instanceId: action.instanceId,
    target: 'attached',
    deadline: ctx.deadline.waitUntil(ctx.deps.settings.maxAttachWaitMs),
    giveUp: (seen, now) => attachStuck(seen, since, now, ctx.deps.settings.plan),
    // Only an attachment EC2 just started can be confused with a lagging read of an earlier one.
    ...(outcome.kind === 'started' ? { leftover: (seen: Ec2Attachment) => leftoverAttachment(seen, outcome) } : {}),
  });
  const now = ctx.deps.clock();
  if (waited.reachedTarget) {
    noteAttachment(ctx, action.volumeId, { instanceId: action.instanceId, state: 'attached', device: waited.device ?? device });
    const written = await finish(onRecord((r) => completeAttach(r, operationId, waited.device ?? device, now)));
    if (!written.ok) return result('failed', `attached, but the record could not be completed: ${written.reason}`);
    await ctx.mode.attached(ctx, action, waited.device ?? device);
    return result('ok', `attached as ${waited.device ?? device}`, { latencyMs: now - calledAt });
  }
  await finish(onRecord((r) => settleAcceptedAttach(r, operationId, waited.state, device, now, ctx.deps.settings.plan.backoff)));
  return result(
    'deferred',
    waited.state === 'attaching'
      ? 'still attaching at the wait deadline; left for the next pass to resolve'
      : `EC2 accepted the attach but shows it ${waited.state} at the wait deadline; kept uncertain until EC2 settles it`,
  );
}

async function fail(
  ctx: PassContext,
  action: AttachAction,
  operationId: string,
  outcome: Exclude<AttachOutcome, { kind: 'started' | 'already-attached' }>,
  finish: (step: Step) => ReturnType<typeof writeRecord>,
  result: ResultOf,
): Promise<ActionResult> {
  const now = ctx.deps.clock();
  // A transient failure (timeout, 5xx) may hide an attach EC2 went on with: verification settles it.
  const options = {
    ec2MayStillBeWorking: outcome.kind === 'transient',
    // No retry changes a refusal until someone fixes the tags or the policy: back off at the cap from the first one.
    longest: outcome.kind === 'unauthorized',
    // Final for the node until something detaches from it: the plan waits for fewer attachments there.
    ...(outcome.kind === 'limit-reached' ? { untilDetachFrom: { instanceId: action.instanceId, attached: attachedOn(ctx, action) } } : {}),
  };
  const error = outcome.kind === 'unauthorized' ? `${outcome.code}: ${outcome.message}` : outcome.message;
  await finish(onRecord((r) => failOperation(r, operationId, error, now, ctx.deps.settings.plan.backoff, options)));
  if (outcome.kind === 'attached-elsewhere') await observeVolume(ctx, action.volumeId);
  await ctx.mode.attachFailed(ctx, action, outcome);
  return result('failed', `${outcome.kind}: ${outcome.message}`, {
    throttled: outcome.kind === 'throttled',
    ...(outcome.kind === 'unauthorized' ? { unauthorized: true } : {}),
  });
}

/** Attachments the actual state holds on the instance, this volume's own excepted. */
function attachedOn(ctx: PassContext, action: AttachAction): number {
  let count = 0;
  for (const record of ctx.actual.values()) {
    if (record.volumeId === action.volumeId) continue;
    count += Object.values(record.attachments).filter((a) => a.instanceId === action.instanceId).length;
  }
  return count;
}
