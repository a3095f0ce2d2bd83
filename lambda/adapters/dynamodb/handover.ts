/**
 * The handover record (core/attacher/handover.ts) on DynamoDB: one item of the state table.
 *
 *   pk S `handover#csi-attacher`, version N (compare-and-swap of the shared fields, absent = 0),
 *   writes S (`on` | `off`, absent = on), writesChange M { at N, by S }?,
 *   observation M { resourceVersion S, seenAt N, holder S?, durationSeconds N?, renewTime N? }?,
 *   heldSince N?, and per registered pass an attribute `pass:<passId>` → N (the time it has surely stopped).
 *
 * Passes register with an UpdateItem conditioned on writes being on, not on the version: many
 * passes enter at once without conflicting, and DynamoDB orders every write of the item, so
 *
 *   pass A enters (writes on) · handback sets writes off (version 7 → 8) · pass B's enter fails its condition
 *
 * leaves the handback, reading after its own write, with A listed and B a dry run.
 */
import { ConditionalCheckFailedException, GetItemCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { z } from 'zod';
import { NO_HANDOVER, type HandoverChange, type HandoverState } from '../../core/attacher/handover.js';
import type { HandoverStore } from '../../ports/handover.js';
import { anyOf, conditionFields, type Condition } from './conditions.js';
import type { StoreContext } from './context.js';
import { CorruptItemError } from './errors.js';
import { describeIssues, HANDOVER_KEY, type Item } from './item.js';

const PASS_PREFIX = 'pass:';
const time = z.number().int().nonnegative();

const handoverSchema = z.object({
  version: z.number().int().nonnegative().default(0),
  writes: z.enum(['on', 'off']).default('on'),
  writesChange: z.object({ at: time, by: z.string() }).optional(),
  observation: z
    .object({
      resourceVersion: z.string(),
      seenAt: time,
      holder: z.string().optional(),
      durationSeconds: z.number().int().nonnegative().optional(),
      renewTime: time.optional(),
    })
    .optional(),
  heldSince: time.optional(),
});

const writesOn = (): Condition =>
  anyOf(
    { expression: 'attribute_not_exists(#writes)', names: { '#writes': 'writes' }, values: {} },
    { expression: '#writes = :on', names: { '#writes': 'writes' }, values: { ':on': { S: 'on' } } },
  );

const versionStill = (version: number): Condition =>
  version === 0
    ? { expression: 'attribute_not_exists(#version)', names: { '#version': 'version' }, values: {} }
    : { expression: '#version = :read', names: { '#version': 'version' }, values: { ':read': { N: String(version) } } };

export function parseHandover(item: Item | undefined): HandoverState {
  if (item === undefined) return NO_HANDOVER;
  const native = unmarshall(item);
  const parsed = handoverSchema.safeParse(native);
  const passes = Object.entries(native).filter(([name]) => name.startsWith(PASS_PREFIX));
  const badPass = passes.find(([, until]) => typeof until !== 'number');
  if (!parsed.success || badPass !== undefined)
    throw new CorruptItemError(HANDOVER_KEY, parsed.success ? `${badPass?.[0]}: a time in epoch ms` : describeIssues(parsed.error));
  const { writesChange, observation, heldSince, ...shared } = parsed.data;
  return {
    ...shared,
    ...(writesChange === undefined ? {} : { writesChange }),
    ...(observation === undefined ? {} : { observation }),
    ...(heldSince === undefined ? {} : { heldSince }),
    passes: Object.fromEntries(passes.map(([name, until]) => [name.slice(PASS_PREFIX.length), until as number])),
  };
}

export class DynamoHandoverStore implements HandoverStore {
  constructor(private readonly ctx: Pick<StoreContext, 'client' | 'tableName'>) {}

  async read(): Promise<HandoverState> {
    const { Item: item } = await this.ctx.client.send(
      new GetItemCommand({ TableName: this.ctx.tableName, Key: { pk: { S: HANDOVER_KEY } }, ConsistentRead: true }),
    );
    return parseHandover(item);
  }

  async enter(passId: string, until: number): Promise<{ entered: boolean; state: HandoverState }> {
    try {
      const { Attributes: item } = await this.send({
        UpdateExpression: 'SET #pass = :until',
        ...conditionFields(writesOn(), { '#pass': `${PASS_PREFIX}${passId}` }, { ':until': { N: String(until) } }),
        ReturnValues: 'ALL_NEW',
      });
      return { entered: true, state: parseHandover(item) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return { entered: false, state: await this.read() };
    }
  }

  async leave(passIds: readonly string[]): Promise<void> {
    if (passIds.length === 0) return;
    const names = Object.fromEntries(passIds.map((id, i) => [`#p${i}`, `${PASS_PREFIX}${id}`]));
    try {
      await this.send({
        UpdateExpression: `REMOVE ${Object.keys(names).join(', ')}`,
        ...conditionFields({ expression: 'attribute_exists(#pk)', names: { '#pk': 'pk' }, values: {} }, names),
      });
    } catch (error) {
      // No item: nothing to leave.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async update(change: HandoverChange, version: number): Promise<'ok' | 'conflict'> {
    const sets: string[] = ['#version = :next'];
    const removes: string[] = [];
    const names: Record<string, string> = {};
    const values: Record<string, AttributeValue> = { ':next': { N: String(version + 1) } };
    for (const [field, value] of Object.entries(change) as [string, unknown][]) {
      if (value === undefined) continue;
      names[`#${field}`] = field;
      if (value === null) removes.push(`#${field}`);
      else {
        sets.push(`#${field} = :${field}`);
        values[`:${field}`] = marshall({ v: value }, { removeUndefinedValues: true }).v as AttributeValue;
      }
    }
    try {
      await this.send({
        UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ...conditionFields(versionStill(version), names, values),
      });
      return 'ok';
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return 'conflict';
      throw error;
    }
  }

  private send(input: Omit<ConstructorParameters<typeof UpdateItemCommand>[0], 'TableName' | 'Key'>) {
    return this.ctx.client.send(new UpdateItemCommand({ TableName: this.ctx.tableName, Key: { pk: { S: HANDOVER_KEY } }, ...input }));
  }
}
