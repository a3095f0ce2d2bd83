/**
 * The EC2 mutating budget shared by every invocation: one item per region and action holding
 * GCRA's TAT (rate-limit.ts), advanced by a compare-and-swap per token. A lost swap returns the
 * item as it now is (ReturnValuesOnConditionCheckFailure), so the next try needs no read; each
 * lost swap means another caller got a slot, so contention only reorders callers. The caller then
 * sleeps on the injected clock until its slot, so no token is handed out twice and none early.
 *
 * Clusters sharing an account and region may point at one budget table: the key names the region
 * and action only, so they then draw from one budget, as EC2 counts them.
 */
import { ConditionalCheckFailedException, GetItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Clock } from '../../clock.js';
import {
  checkBucketSize,
  MUTATING_ACTIONS,
  reserveSlot,
  type BucketSize,
  type MutatingAction,
  type RateLimiter,
} from '../ec2/rate-limit.js';
import { BUDGET_PREFIX, type Item } from './item.js';

export interface RateBudgetOptions {
  client: DynamoDBClient;
  tableName: string;
  region: string;
  sizes: Record<MutatingAction, BucketSize>;
  clock: Clock;
}

/** Swaps lost in a row before giving up: far above what the stack's concurrency can cause. */
const MAX_SWAPS = 200;

export const budgetKey = (region: string, action: MutatingAction): string => `${BUDGET_PREFIX}ec2#${region}#${action}`;

export class DynamoRateBudget implements RateLimiter {
  /** The TAT this environment last wrote or saw, per action: the first swap's guess. */
  private readonly known = new Map<MutatingAction, number>();

  constructor(private readonly options: RateBudgetOptions) {
    for (const action of MUTATING_ACTIONS) checkBucketSize(action, options.sizes[action]);
  }

  async acquire(action: MutatingAction): Promise<void> {
    const slot = await this.reserve(action);
    const wait = slot - this.options.clock.now();
    if (wait > 0) await this.options.clock.sleep(wait);
  }

  /** Reserves the next slot of `action`; returns it (epoch ms). */
  async reserve(action: MutatingAction): Promise<number> {
    let stored = this.known.get(action);
    for (let swap = 0; swap < MAX_SWAPS; swap++) {
      const next = reserveSlot(stored, this.options.clock.now(), this.options.sizes[action]);
      try {
        await this.options.client.send(this.swap(action, stored, next.tat));
        this.known.set(action, next.tat);
        return next.slot;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        stored = error.Item === undefined ? await this.read(action) : tatOf(error.Item);
      }
    }
    throw new Error(`rate budget ${budgetKey(this.options.region, action)}: ${MAX_SWAPS} compare-and-swaps lost in a row`);
  }

  private swap(action: MutatingAction, expected: number | undefined, tat: number): UpdateItemCommand {
    return new UpdateItemCommand({
      TableName: this.options.tableName,
      Key: { pk: { S: budgetKey(this.options.region, action) } },
      UpdateExpression: 'SET tat = :tat',
      ConditionExpression: expected === undefined ? 'attribute_not_exists(tat)' : 'tat = :expected',
      ExpressionAttributeValues: {
        ':tat': { N: String(tat) },
        ...(expected === undefined ? {} : { ':expected': { N: String(expected) } }),
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  }

  /** Stores that do not return the item on a failed condition (dynalite) are read instead. */
  private async read(action: MutatingAction): Promise<number | undefined> {
    const { Item: item } = await this.options.client.send(
      new GetItemCommand({
        TableName: this.options.tableName,
        Key: { pk: { S: budgetKey(this.options.region, action) } },
        ConsistentRead: true,
      }),
    );
    return item === undefined ? undefined : tatOf(item);
  }
}

/** The stored TAT; an item without a readable one counts as never used (the swap's condition still guards it). */
function tatOf(item: Item): number | undefined {
  const value = Number(item.tat?.N);
  return item.tat?.N === undefined || !Number.isFinite(value) ? undefined : value;
}
