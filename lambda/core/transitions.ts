/**
 * Pure transitions of one volume's actual state (DESIGN §5). Each takes a record (never mutated)
 * and returns the next record or a typed refusal. The store writes the result with a
 * compare-and-swap on `version`, which the transitions leave unchanged: it is the token read.
 * A transition that changes nothing returns the very same object, so callers can skip the write.
 */
import { inBackoff, nextBackoff, type BackoffConfig } from './backoff.js';
import type { Backoff } from './types.js';
import { isLive } from './operations.js';
import { accept, clone, emptyRecord, observedState, optional, refuse, type Transition } from './transition-result.js';
import {
  lockKey,
  operationKey,
  type AccessMode,
  type ActualAttachment,
  type Ec2Attachment,
  type InstanceId,
  type NodeName,
  type Operation,
  type OperationKind,
  type UniqueVolumeName,
  type VolumeId,
  type VolumeRecord,
} from './types.js';

export type { RefusalCode, Transition } from './transition-result.js';
export * from './attachment-facts.js';

export interface BeginOperationInput {
  volumeId: VolumeId;
  uniqueName: UniqueVolumeName;
  accessModes: AccessMode[];
  multiAttach: boolean;
  kind: OperationKind;
  nodeName: NodeName;
  instanceId: InstanceId;
  operationId: string;
  /** Device reserved for an attach. */
  device?: string;
  ec2Force?: boolean;
}

/** The operation with this id and its lock key, or a refusal. */
function heldOperation(record: VolumeRecord, operationId: string, kind?: OperationKind): { key: string; op: Operation } | Transition {
  const entry = Object.entries(record.operations).find(([, op]) => op.id === operationId);
  if (!entry) return refuse('not-holder', `operation ${operationId} no longer holds a lock on ${record.volumeId}`);
  const [key, op] = entry;
  if (kind && op.kind !== kind) return refuse('wrong-kind', `operation ${operationId} is a ${op.kind}, not a ${kind}`);
  return { key, op };
}
const isRefusal = (value: object): value is Transition => 'ok' in value;

/** Records the operation (the intent, with its lease) before EC2 is called; the multi-attach check is part of it. */
export function beginOperation(record: VolumeRecord | undefined, input: BeginOperationInput, now: number, leaseMs: number): Transition {
  const next = record ? clone(record) : emptyRecord(input.volumeId, input.uniqueName);
  // Lock keys depend on multiAttach, so the volume's facts change only while no operation is recorded.
  if (Object.keys(next.operations).length === 0) {
    Object.assign(next, { uniqueName: input.uniqueName, accessModes: [...input.accessModes], multiAttach: input.multiAttach });
  }
  const key = lockKey(next, input.nodeName);
  const holder = next.operations[key];
  if (holder) {
    return isLive(holder, now)
      ? refuse('locked', `${input.volumeId} is locked by ${holder.kind} ${holder.id} on ${holder.nodeName} until ${holder.leaseExpiresAt}`)
      : refuse('expired-operation', `${input.volumeId} holds expired ${holder.kind} ${holder.id}: resolve it against EC2 first`);
  }
  const backoff = next.backoff[operationKey(input.kind, input.nodeName)];
  if (backoff && inBackoff(backoff, now)) {
    return refuse(
      'backoff',
      `${input.kind} of ${input.volumeId} on ${input.nodeName} waits until ${backoff.notBefore} after: ${backoff.lastError}`,
    );
  }
  return input.kind === 'attach' ? beginAttach(next, key, input, now, leaseMs) : beginDetach(next, key, input, now, leaseMs);
}

function beginAttach(next: VolumeRecord, key: string, input: BeginOperationInput, now: number, leaseMs: number): Transition {
  const others = new Set(
    [...Object.keys(next.attachments), ...Object.values(next.operations).map((op) => op.nodeName)].filter(
      (node) => node !== input.nodeName,
    ),
  );
  if (!next.multiAttach && others.size > 0) {
    return refuse('multi-attach', `exclusive volume ${input.volumeId} is already used by ${[...others].sort().join(', ')}`);
  }
  const existing = next.attachments[input.nodeName];
  next.operations[key] = operation(input, input.instanceId, input.device ?? existing?.device, existing, now, leaseMs);
  next.attachments[input.nodeName] = {
    nodeName: input.nodeName,
    instanceId: input.instanceId,
    state: 'attaching',
    ...optional('device', existing?.device ?? input.device),
    mounted: existing?.mounted ?? false,
    reported: existing?.reported ?? false,
    since: now,
  };
  return accept(next);
}

function beginDetach(next: VolumeRecord, key: string, input: BeginOperationInput, now: number, leaseMs: number): Transition {
  const existing = next.attachments[input.nodeName];
  if (!existing) return refuse('no-attachment', `${input.volumeId} has no attachment on ${input.nodeName} to detach`);
  const listing = Math.max(...Object.values(existing.listingClaims ?? {}));
  if (listing > now) return refuse('listing', `another pass is listing ${input.volumeId} on ${input.nodeName} until ${listing}`);
  // Detach what is attached: the attachment's instance, even if the node now runs on another one.
  next.operations[key] = operation(input, existing.instanceId, existing.device, existing, now, leaseMs);
  const { listingClaims: _lapsed, ...attachment } = existing;
  next.attachments[input.nodeName] = { ...attachment, state: 'detaching', since: now };
  return accept(next);
}

function operation(
  input: BeginOperationInput,
  instanceId: InstanceId,
  device: string | undefined,
  prior: ActualAttachment | undefined,
  now: number,
  leaseMs: number,
): Operation {
  return {
    id: input.operationId,
    kind: input.kind,
    nodeName: input.nodeName,
    instanceId,
    ...optional('device', device),
    ...optional('ec2Force', input.ec2Force),
    startedAt: now,
    leaseExpiresAt: now + leaseMs,
    ...optional('prior', prior && { state: prior.state, ...optional('device', prior.device) }),
  };
}

/** EC2 reports the volume attached on `device`: the lock is released and the backoff reset. */
export function completeAttach(record: VolumeRecord, operationId: string, device: string, now: number): Transition {
  const held = heldOperation(record, operationId, 'attach');
  if (isRefusal(held)) return held;
  const { key, op } = held;
  const next = release(record, key, op, true);
  const existing = next.attachments[op.nodeName];
  next.attachments[op.nodeName] = {
    mounted: false,
    reported: false,
    ...existing,
    nodeName: op.nodeName,
    instanceId: op.instanceId,
    state: 'attached',
    device,
    since: now,
  };
  return accept(next);
}

/** EC2 reports the volume detached: the attachment goes with the lock. */
export function completeDetach(record: VolumeRecord, operationId: string, _now: number): Transition {
  const held = heldOperation(record, operationId, 'detach');
  if (isRefusal(held)) return held;
  const next = release(record, held.key, held.op, true);
  delete next.attachments[held.op.nodeName];
  return accept(next);
}

/** A copy without the operation; an operation that reached its goal also clears its backoff. */
function release(record: VolumeRecord, key: string, op: Operation, succeeded: boolean): VolumeRecord {
  const next = clone(record);
  delete next.operations[key];
  if (succeeded) delete next.backoff[operationKey(op.kind, op.nodeName)];
  return next;
}

/**
 * The operation failed: its lock is released and its key backs off. If EC2 did nothing the
 * attachment is restored as it was before the operation (a fresh attach disappears); if EC2 may
 * still be working it becomes `uncertain`, for verification to settle.
 */
export function failOperation(
  record: VolumeRecord,
  operationId: string,
  error: string,
  now: number,
  backoffConfig: BackoffConfig,
  options: { ec2MayStillBeWorking?: boolean; untilDetachFrom?: Backoff['untilDetachFrom']; longest?: boolean } = {},
): Transition {
  const held = heldOperation(record, operationId);
  if (isRefusal(held)) return held;
  const { key, op } = held;
  const next = release(record, key, op, false);
  const backoffKey = operationKey(op.kind, op.nodeName);
  const config = options.longest ? { ...backoffConfig, initialMs: backoffConfig.maxMs } : backoffConfig;
  next.backoff[backoffKey] = nextBackoff(next.backoff[backoffKey], error, now, config, options.untilDetachFrom);
  const current = next.attachments[op.nodeName];
  if (!current) return accept(next);
  if (options.ec2MayStillBeWorking) {
    next.attachments[op.nodeName] = { ...current, state: 'uncertain', ...optional('device', current.device ?? op.device), since: now };
  } else if (op.prior) {
    const { device: _device, ...rest } = current;
    next.attachments[op.nodeName] = { ...rest, state: op.prior.state, ...optional('device', op.prior.device), since: now };
  } else {
    delete next.attachments[op.nodeName];
  }
  return accept(next);
}

/**
 * The operation was taken but nothing was sent to EC2 (a last check said not now): its lock is
 * released, the attachment is as it was before, and no backoff is counted.
 */
export function abandonOperation(record: VolumeRecord, operationId: string, now: number): Transition {
  const held = heldOperation(record, operationId);
  if (isRefusal(held)) return held;
  const { key, op } = held;
  const next = release(record, key, op, false);
  const current = next.attachments[op.nodeName];
  if (current && op.prior) {
    const { device: _device, ...rest } = current;
    next.attachments[op.nodeName] = { ...rest, state: op.prior.state, ...optional('device', op.prior.device), since: now };
  } else if (current) {
    delete next.attachments[op.nodeName];
  }
  return accept(next);
}

/**
 * EC2 is still working at the wait deadline: the intent stays recorded for a later pass. With
 * `now`, the lease ends now so the next pass resolves it against EC2 instead of waiting it out.
 */
export function leaveInProgress(record: VolumeRecord, operationId: string, now?: number): Transition {
  const held = heldOperation(record, operationId);
  if (isRefusal(held)) return held;
  if (now === undefined || held.op.leaseExpiresAt <= now) return accept(record);
  const next = clone(record);
  next.operations[held.key] = { ...held.op, leaseExpiresAt: now };
  return accept(next);
}

/** A new holder takes an expired operation over; the old holder's late writes then fail their fence. */
export function takeOver(
  record: VolumeRecord,
  expiredOperationId: string,
  newOperationId: string,
  now: number,
  leaseMs: number,
): Transition {
  const held = heldOperation(record, expiredOperationId);
  if (isRefusal(held)) return held;
  if (isLive(held.op, now)) return refuse('lease-live', `operation ${expiredOperationId} holds its lease until ${held.op.leaseExpiresAt}`);
  const next = clone(record);
  next.operations[held.key] = { ...held.op, id: newOperationId, startedAt: now, leaseExpiresAt: now + leaseMs };
  return accept(next);
}

/**
 * Settles an expired operation with what EC2 says about this volume on the operation's
 * instance (`undefined`: no attachment): the lock is released and the attachment set to EC2's view.
 * A detach EC2 still shows `attached` fails as one EC2 may still be working on: DescribeVolumes is
 * eventually consistent, so the read may predate a DetachVolume that was sent. The attachment stays
 * `uncertain` (never listed on the node, invariant 5) until EC2 or our own call settles it.
 */
export function resolveExpired(
  record: VolumeRecord,
  operationId: string,
  ec2View: Ec2Attachment | undefined,
  now: number,
  backoffConfig: BackoffConfig,
): Transition {
  const held = heldOperation(record, operationId);
  if (isRefusal(held)) return held;
  const { key, op } = held;
  if (isLive(op, now)) return refuse('lease-live', `operation ${operationId} holds its lease until ${op.leaseExpiresAt}`);
  if (ec2View && ec2View.instanceId !== op.instanceId) {
    return refuse('wrong-target', `EC2 view of ${ec2View.instanceId} does not settle operation ${operationId} on ${op.instanceId}`);
  }
  if (!ec2View || ec2View.state === 'detached') {
    const next = release(record, key, op, op.kind === 'detach');
    delete next.attachments[op.nodeName];
    return accept(next);
  }
  const state = observedState(ec2View.state);
  if (op.kind === 'detach' && state === 'attached') {
    const error = 'EC2 shows the volume attached after the detach; the read may predate the DetachVolume';
    return failOperation(record, operationId, error, now, backoffConfig, { ec2MayStillBeWorking: true });
  }
  const next = release(record, key, op, op.kind === 'attach' && state === 'attached');
  const current = next.attachments[op.nodeName];
  next.attachments[op.nodeName] = {
    mounted: false,
    reported: false,
    ...current,
    nodeName: op.nodeName,
    instanceId: op.instanceId,
    state,
    device: ec2View.device,
    since: current && current.state === state ? current.since : now,
  };
  return accept(next);
}
