/**
 * Compare-and-swap writes of volume items. Each returns `conflict` when its condition fails:
 * the item changed underneath the caller, who re-reads and re-decides.
 */
import { ConditionalCheckFailedException, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { VolumeRecord } from '../../core/types.js';
import type { WriteResult } from '../../ports/volume-store.js';
import {
  allOf,
  anyOf,
  conditionFields,
  holdsNothing,
  isTombstone,
  itemDoesNotExist,
  operationIsHeldBy,
  versionIs,
  type Condition,
} from './conditions.js';
import type { StoreContext } from './context.js';
import { InvalidWriteError, VolumeStoreError } from './errors.js';
import { describeIssues, tombstoneItem, toItem, volumeKey, volumeRecordSchema } from './item.js';

export interface Fence {
  lockKey: string;
  operationId: string;
}

const CONFLICT = { ok: false, reason: 'conflict' } as const;

/** Runs a conditional write; a failed condition is the typed conflict, anything else propagates. */
async function conditionally<T>(write: () => Promise<T>): Promise<T | typeof CONFLICT> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return CONFLICT;
    throw error;
  }
}

function validated(next: VolumeRecord): VolumeRecord {
  const parsed = volumeRecordSchema.safeParse(next);
  if (!parsed.success)
    throw new InvalidWriteError(`refusing to store an invalid record for ${next.volumeId}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

export async function putVolume(ctx: StoreContext, next: VolumeRecord, fence?: Fence): Promise<WriteResult> {
  const record = validated(next);
  const fenced = (condition: Condition) => (fence ? allOf(condition, operationIsHeldBy(fence.lockKey, fence.operationId)) : condition);
  return record.version === 0
    ? createVolume(ctx, record, fenced(anyOf(itemDoesNotExist(), isTombstone())))
    : replaceVolume(ctx, record, fenced(versionIs(record.version)));
}

async function replaceVolume(ctx: StoreContext, record: VolumeRecord, condition: Condition): Promise<WriteResult> {
  const version = record.version + 1;
  return conditionally(async () => {
    await ctx.client.send(new PutItemCommand({ TableName: ctx.tableName, Item: toItem(record, version), ...conditionFields(condition) }));
    return { ok: true, record: { ...record, version } };
  });
}

/**
 * A new item, or one over a tombstone: the version continues from the tombstone's, so a writer
 * still holding a version read before the removal can never match again.
 */
async function createVolume(ctx: StoreContext, record: VolumeRecord, condition: Condition): Promise<WriteResult> {
  const { pk: _pk, version: _version, ...attributes } = toItem(record, 1);
  const names: Record<string, string> = { '#version': 'version', '#removedAt': 'removedAt', '#ttl': 'ttl' };
  const values: Record<string, (typeof attributes)[string]> = { ':zero': { N: '0' }, ':one': { N: '1' } };
  const assignments = Object.entries(attributes).map(([name, value]) => {
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    return `#${name} = :${name}`;
  });
  return conditionally(async () => {
    const output = await ctx.client.send(
      new UpdateItemCommand({
        TableName: ctx.tableName,
        Key: volumeKey(record.volumeId),
        UpdateExpression: `SET ${assignments.join(', ')}, #version = if_not_exists(#version, :zero) + :one REMOVE #removedAt, #ttl`,
        ...conditionFields(condition, names, values),
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const version = Number(output.Attributes?.version?.N);
    if (!Number.isInteger(version)) throw new VolumeStoreError(`UpdateItem of ${record.volumeId} returned no version`);
    return { ok: true, record: { ...record, version } };
  });
}

/** Leaves a tombstone (see item.ts) if the item is unchanged and holds no attachment and no operation. */
export async function removeVolume(ctx: StoreContext, record: VolumeRecord): Promise<{ ok: true } | typeof CONFLICT> {
  if (Object.keys(record.attachments).length > 0 || Object.keys(record.operations).length > 0) {
    throw new InvalidWriteError(`refusing to remove ${record.volumeId}: it still has attachments or an operation`);
  }
  if (record.version === 0) return { ok: true };
  const condition = allOf(versionIs(record.version), holdsNothing());
  const tombstone = tombstoneItem(record.volumeId, record.version + 1, ctx.clock(), ctx.tombstoneTtlSeconds);
  return conditionally(async () => {
    await ctx.client.send(new PutItemCommand({ TableName: ctx.tableName, Item: tombstone, ...conditionFields(condition) }));
    return { ok: true } as const;
  });
}
