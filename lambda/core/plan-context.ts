/**
 * Shared bookkeeping of one plan: the inputs, an index of the desired state, the locks already
 * claimed by actions planned this pass, and what was deferred and why.
 */
import type { Deferred, DetachRequestUpdate } from './actions.js';
import { compareText } from './compare.js';
import { heldByLimit, inBackoff } from './backoff.js';
import type { PlanConfig } from './config.js';
import type { Coded, WaitCode } from './reasons.js';
import {
  lockKey,
  operationKey,
  type ActualState,
  type DesiredAttachment,
  type DesiredState,
  type InstanceId,
  type NodeName,
  type Observations,
  type OperationKind,
  type VolumeId,
  type VolumeRecord,
} from './types.js';

export interface PlanContext {
  desired: DesiredState;
  actual: ActualState;
  observations: Observations;
  now: number;
  config: PlanConfig;
  /** volume → node → desired attachment. */
  wanted: Map<VolumeId, Map<NodeName, DesiredAttachment>>;
  /** volume → nodes holding a lock claimed this pass ('*' for the whole volume). */
  claims: Map<VolumeId, Set<string>>;
  /** volume → nodes an attach was planned to this pass. */
  plannedAttaches: Map<VolumeId, NodeName[]>;
  deferred: Deferred[];
  detachRequests: DetachRequestUpdate[];
  /** Attachments held per instance, counted on first use (attachedOn). */
  attachedByInstance?: Map<InstanceId, number>;
}

export function createContext(
  desired: DesiredState,
  actual: ActualState,
  observations: Observations,
  now: number,
  config: PlanConfig,
): PlanContext {
  const wanted = new Map<VolumeId, Map<NodeName, DesiredAttachment>>();
  for (const attachment of desired.attachments) {
    const byNode = wanted.get(attachment.volumeId) ?? new Map<NodeName, DesiredAttachment>();
    byNode.set(attachment.nodeName, attachment);
    wanted.set(attachment.volumeId, byNode);
  }
  return {
    desired,
    actual,
    observations,
    now,
    config,
    wanted,
    claims: new Map(),
    plannedAttaches: new Map(),
    deferred: [],
    detachRequests: [],
  };
}

export function defer(ctx: PlanContext, volumeId: VolumeId, nodeName: NodeName, operation: OperationKind, why: Coded<WaitCode>): void {
  ctx.deferred.push({ volumeId, nodeName, operation, code: why.code, reason: why.text });
}

const WHOLE_VOLUME = '*';

/** How many attachments the actual state holds on an instance (counted once a pass, on first use). */
export function attachedOn(ctx: PlanContext, instanceId: InstanceId): number {
  ctx.attachedByInstance ??= countByInstance(ctx.actual);
  return ctx.attachedByInstance.get(instanceId) ?? 0;
}

function countByInstance(actual: ActualState): Map<InstanceId, number> {
  const counts = new Map<InstanceId, number>();
  for (const record of actual.values()) {
    for (const a of Object.values(record.attachments)) counts.set(a.instanceId, (counts.get(a.instanceId) ?? 0) + 1);
  }
  return counts;
}

/**
 * Why no new operation may start on (volume, node), or undefined when one may: an operation
 * holds the lock (expired ones too, until resolved), the backoff is active, or an action on the
 * same lock was already planned this pass. Exclusive volumes lock as a whole.
 */
export function blockedReason(
  ctx: PlanContext,
  record: VolumeRecord | undefined,
  volumeId: VolumeId,
  nodeName: NodeName,
  kind: OperationKind,
  exclusive: boolean,
): Coded<WaitCode> | undefined {
  if (record) {
    const op = exclusive ? Object.values(record.operations)[0] : record.operations[lockKey(record, nodeName)];
    if (op) {
      const held = `${op.kind} operation ${op.id} on node ${op.nodeName}`;
      return op.leaseExpiresAt <= ctx.now
        ? { code: 'lease-expired', text: `${held} has an expired lease and is resolved first` }
        : { code: 'lock-held', text: `${held} holds the lock until ${new Date(op.leaseExpiresAt).toISOString()}` };
    }
    const backoff = record.backoff[operationKey(kind, nodeName)];
    if (heldByLimit(backoff, (instanceId) => attachedOn(ctx, instanceId))) {
      return {
        code: 'attachment-limit',
        text: `the node has no attachment slot left (${backoff!.lastError}); it is attached once a volume is detached from the node`,
      };
    }
    if (inBackoff(backoff, ctx.now) && backoff!.untilDetachFrom === undefined) {
      const until = new Date(backoff!.notBefore).toISOString();
      return {
        code: 'backing-off',
        text: `${kind} is backing off after ${backoff!.failures} failure(s) until ${until}: ${backoff!.lastError}`,
      };
    }
  }
  const claimed = ctx.claims.get(volumeId);
  if (claimed && (exclusive ? claimed.size > 0 : claimed.has(WHOLE_VOLUME) || claimed.has(nodeName))) {
    return { code: 'planned-this-pass', text: 'another operation on this volume is already planned in this pass' };
  }
  return undefined;
}

export function claim(ctx: PlanContext, volumeId: VolumeId, nodeName: NodeName, exclusive: boolean): void {
  const claimed = ctx.claims.get(volumeId) ?? new Set<string>();
  claimed.add(exclusive ? WHOLE_VOLUME : nodeName);
  ctx.claims.set(volumeId, claimed);
}

export function sortedRecords(actual: ActualState): VolumeRecord[] {
  return [...actual.values()].sort((a, b) => compareText(a.volumeId, b.volumeId));
}

export function sortedNodeNames(record: VolumeRecord): NodeName[] {
  return Object.keys(record.attachments).sort();
}
