/**
 * The mass-detach window on DynamoDB: one item in the state table, compare-and-swapped on its
 * version like the controller-state item, holding the claims of the last window.
 *
 *   A reads v4 (12 of 12 free) · B reads v4 · A writes v5 with a claim of 12 · B's write "version is 4" fails,
 *   B re-reads v5 (0 free) and holds its detaches back.
 */
import { ConditionalCheckFailedException, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { z } from 'zod';
import { claimDetaches, type ClaimRequest, type DetachWindow } from '../../core/mass-detach-window.js';
import type { MassDetachWindow } from '../../ports/mass-detach-window.js';
import { conditionFields, itemDoesNotExist, versionIs } from './conditions.js';
import type { StoreContext } from './context.js';
import { CorruptItemError } from './errors.js';
import { describeIssues, MASS_DETACH_WINDOW_KEY } from './item.js';

/** Swaps lost in a row before giving up: far above the number of passes that can overlap. */
const MAX_SWAPS = 50;

const time = z.number().int().nonnegative();
const windowSchema = z.object({
  claims: z.array(z.object({ at: time, count: z.number().int().positive() })),
  version: z.number().int().positive(),
});

export class DynamoMassDetachWindow implements MassDetachWindow {
  constructor(private readonly ctx: Pick<StoreContext, 'client' | 'tableName'>) {}

  async claim(request: ClaimRequest, now: number): Promise<number> {
    for (let swap = 0; swap < MAX_SWAPS; swap++) {
      const { granted, next } = claimDetaches(await this.read(), request, now);
      if (granted === 0 || (await this.write(next))) return granted;
    }
    throw new Error(`mass-detach window: ${MAX_SWAPS} compare-and-swaps lost in a row`);
  }

  private async read(): Promise<DetachWindow> {
    const { Item: item } = await this.ctx.client.send(
      new GetItemCommand({ TableName: this.ctx.tableName, Key: { pk: { S: MASS_DETACH_WINDOW_KEY } }, ConsistentRead: true }),
    );
    if (item === undefined) return { claims: [], version: 0 };
    const parsed = windowSchema.safeParse(unmarshall(item));
    if (!parsed.success) throw new CorruptItemError(MASS_DETACH_WINDOW_KEY, describeIssues(parsed.error));
    return parsed.data;
  }

  /** Stores `next` if the stored version is still the one read; false when another invocation wrote first. */
  private async write(next: DetachWindow): Promise<boolean> {
    const condition = next.version === 0 ? itemDoesNotExist() : versionIs(next.version);
    try {
      await this.ctx.client.send(
        new PutItemCommand({
          TableName: this.ctx.tableName,
          Item: marshall({ pk: MASS_DETACH_WINDOW_KEY, claims: next.claims, version: next.version + 1 }),
          ...conditionFields(condition),
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}
