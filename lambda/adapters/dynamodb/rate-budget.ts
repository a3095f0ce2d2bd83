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

/** A caller waiting in this environment for its slot. */
interface Waiter {
  resolve(slot: number): void;
  reject(error: unknown): void;
}

export class DynamoRateBudget implements RateLimiter {
  /** The TAT this environment last wrote or saw, per action: the first swap's guess. */
  private readonly known = new Map<MutatingAction, number>();
  /** Callers of this environment waiting for a slot, per action, and whether a swap is in flight. */
  private readonly waiting = new Map<MutatingAction, Waiter[]>();
  private readonly swapping = new Set<MutatingAction>();

  constructor(private readonly options: RateBudgetOptions) {
    for (const action of MUTATING_ACTIONS) checkBucketSize(action, options.sizes[action]);
  }

  async acquire(action: MutatingAction): Promise<void> {
    const slot = await this.reserve(action);
    const wait = slot - this.options.clock.now();
    if (wait > 0) await this.options.clock.sleep(wait);
  }

  /**
   * Reserves the next slot of `action`; returns it (epoch ms). One swap is in flight per action in
   * an environment: the callers that arrive meanwhile are served together by the next swap, which
   * reserves a slot for each. Concurrent passes of one watcher would otherwise race each other for
   * the item, and every lost swap is another round trip before their EC2 call.
   */
  reserve(action: MutatingAction): Promise<number> {
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(action) ?? [];
      queue.push({ resolve, reject });
      this.waiting.set(action, queue);
      if (!this.swapping.has(action)) void this.serve(action);
    });
  }

  private async serve(action: MutatingAction): Promise<void> {
    this.swapping.add(action);
    try {
      for (let batch = this.take(action); batch.length > 0; batch = this.take(action)) {
        try {
          const slots = await this.reserveSlots(action, batch.length);
          batch.forEach((waiter, i) => waiter.resolve(slots[i] as number));
        } catch (error) {
          for (const waiter of batch) waiter.reject(error);
        }
      }
    } finally {
      this.swapping.delete(action);
    }
  }

  private take(action: MutatingAction): Waiter[] {
    const batch = this.waiting.get(action) ?? [];
    this.waiting.delete(action);
    return batch;
  }

  /** `count` consecutive slots of `action`, in order, reserved by one successful compare-and-swap. */
  private async reserveSlots(action: MutatingAction, count: number): Promise<number[]> {
    let stored = this.known.get(action);
    for (let swap = 0; swap < MAX_SWAPS; swap++) {
      const now = this.options.clock.now();
      const slots: number[] = [];
      let tat = stored;
      for (let i = 0; i < count; i++) {
        const next = reserveSlot(tat, now, this.options.sizes[action]);
        slots.push(next.slot);
        tat = next.tat;
      }
      try {
        await this.options.client.send(this.swap(action, stored, tat as number));
        this.known.set(action, tat as number);
        return slots;
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
