/**
 * The watchers' lease and checkpoints in the state table: `watcher#lease`, compare-and-swapped on
 * its version like the controller-state item, and `watcher#checkpoint#<kind>`, written as it comes.
 *
 *   A (ending in 40 s) and B read v8 · B writes v9 with itself added · A's heartbeat "version is 8"
 *   fails, A re-reads v9, sees B and keeps watching until B says it watches, then steps down.
 */
import { BatchGetItemCommand, ConditionalCheckFailedException, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { z } from 'zod';
import type { WatcherFacts } from '../../core/coverage.js';
import type { WatchCheckpoint, WatchedKind, WatcherLease } from '../../core/watch.js';
import type { WatcherStore } from '../../ports/watcher-store.js';
import { conditionFields, itemDoesNotExist, versionIs } from './conditions.js';
import type { StoreContext } from './context.js';
import { CorruptItemError } from './errors.js';
import { describeIssues, WATCHER_CHECKPOINT_PREFIX, WATCHER_GAVE_UP_KEY, WATCHER_LEASE_KEY } from './item.js';

const time = z.number().int().nonnegative();
const leaseSchema = z.object({
  holders: z.record(z.string(), z.object({ startedAt: time, endsAt: time, heartbeatAt: time, watching: z.boolean() })),
  version: z.number().int().positive(),
});
const checkpointSchema = z.object({ resourceVersion: z.string().min(1), savedAt: time });
const gaveUpSchema = z.object({ at: time });

/** One coordination item as its schema reads it; an unreadable one throws. */
function readAs<T>(schema: z.ZodType<T>, native: unknown, key: string): T {
  const parsed = schema.safeParse(native);
  if (!parsed.success) throw new CorruptItemError(key, describeIssues(parsed.error));
  return parsed.data;
}

const checkpointKey = (kind: WatchedKind) => `${WATCHER_CHECKPOINT_PREFIX}${kind}`;

export class DynamoWatcherStore implements WatcherStore {
  constructor(private readonly ctx: Pick<StoreContext, 'client' | 'tableName'>) {}

  async readLease(): Promise<WatcherLease> {
    const { Item: item } = await this.ctx.client.send(
      new GetItemCommand({ TableName: this.ctx.tableName, Key: { pk: { S: WATCHER_LEASE_KEY } }, ConsistentRead: true }),
    );
    if (item === undefined) return { holders: {}, version: 0 };
    const parsed = leaseSchema.safeParse(unmarshall(item));
    if (!parsed.success) throw new CorruptItemError(WATCHER_LEASE_KEY, describeIssues(parsed.error));
    return parsed.data;
  }

  async writeLease(next: WatcherLease): Promise<boolean> {
    const condition = next.version === 0 ? itemDoesNotExist() : versionIs(next.version);
    try {
      await this.ctx.client.send(
        new PutItemCommand({
          TableName: this.ctx.tableName,
          Item: marshall({ pk: WATCHER_LEASE_KEY, holders: next.holders, version: next.version + 1 }),
          ...conditionFields(condition),
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async readCheckpoints(kinds: readonly WatchedKind[]): Promise<Partial<Record<WatchedKind, WatchCheckpoint>>> {
    if (kinds.length === 0) return {};
    const output = await this.ctx.client.send(
      new BatchGetItemCommand({
        RequestItems: { [this.ctx.tableName]: { Keys: kinds.map((kind) => ({ pk: { S: checkpointKey(kind) } })), ConsistentRead: true } },
      }),
    );
    const found: Partial<Record<WatchedKind, WatchCheckpoint>> = {};
    for (const item of output.Responses?.[this.ctx.tableName] ?? []) {
      const native = unmarshall(item);
      const kind = kinds.find((k) => checkpointKey(k) === native.pk);
      const parsed = checkpointSchema.safeParse(native);
      // An unreadable checkpoint only costs a list: the watcher starts over from the API server's word.
      if (kind !== undefined && parsed.success) found[kind] = parsed.data;
    }
    return found;
  }

  async saveCheckpoint(kind: WatchedKind, checkpoint: WatchCheckpoint): Promise<void> {
    await this.ctx.client.send(
      new PutItemCommand({ TableName: this.ctx.tableName, Item: marshall({ pk: checkpointKey(kind), ...checkpoint }) }),
    );
  }

  async readFacts(kinds: readonly WatchedKind[]): Promise<WatcherFacts> {
    const keys = [WATCHER_LEASE_KEY, WATCHER_GAVE_UP_KEY, ...kinds.map(checkpointKey)];
    const output = await this.ctx.client.send(
      new BatchGetItemCommand({
        RequestItems: { [this.ctx.tableName]: { Keys: keys.map((pk) => ({ pk: { S: pk } })), ConsistentRead: true } },
      }),
    );
    // Facts read in part are no facts: the pass that asked lists the cluster instead.
    if ((output.UnprocessedKeys?.[this.ctx.tableName]?.Keys ?? []).length > 0)
      throw new Error('watcher facts read in part (unprocessed keys)');
    const facts: WatcherFacts = { lease: { holders: {}, version: 0 }, checkpoints: {} };
    for (const item of output.Responses?.[this.ctx.tableName] ?? []) {
      const native = unmarshall(item);
      const key = String(native.pk);
      if (key === WATCHER_LEASE_KEY) facts.lease = readAs(leaseSchema, native, key);
      else if (key === WATCHER_GAVE_UP_KEY) facts.gaveUpAt = readAs(gaveUpSchema, native, key).at;
      else {
        const kind = kinds.find((k) => checkpointKey(k) === key);
        if (kind !== undefined) facts.checkpoints[kind] = readAs(checkpointSchema, native, key);
      }
    }
    return facts;
  }

  async markGaveUp(at: number): Promise<void> {
    try {
      await this.ctx.client.send(
        new PutItemCommand({
          TableName: this.ctx.tableName,
          Item: marshall({ pk: WATCHER_GAVE_UP_KEY, at }),
          // A late, older mark never hides a newer one.
          ConditionExpression: 'attribute_not_exists(pk) OR #at < :at',
          ExpressionAttributeNames: { '#at': 'at' },
          ExpressionAttributeValues: marshall({ ':at': at }),
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}
