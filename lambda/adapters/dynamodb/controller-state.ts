/** The controller-wide bookkeeping item (`controller#state`), compare-and-swapped like a volume. */
import { ConditionalCheckFailedException, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { ControllerState } from '../../ports/volume-store.js';
import { conditionFields, itemDoesNotExist, versionIs } from './conditions.js';
import type { StoreContext } from './context.js';
import { CorruptItemError } from './errors.js';
import { CONTROLLER_STATE_KEY, controllerStateItem, parseControllerState } from './item.js';

/** `{ version: 0 }` until first written. */
export async function getControllerState(ctx: StoreContext): Promise<ControllerState> {
  const { Item: item } = await ctx.client.send(
    new GetItemCommand({
      TableName: ctx.tableName,
      Key: { pk: { S: CONTROLLER_STATE_KEY } },
      ConsistentRead: ctx.consistentRead,
    }),
  );
  if (!item) return { version: 0 };
  const state = parseControllerState(item);
  if ('problem' in state) throw new CorruptItemError(CONTROLLER_STATE_KEY, state.problem);
  return state;
}

export async function putControllerState(ctx: StoreContext, next: ControllerState): Promise<{ ok: boolean }> {
  const condition = next.version === 0 ? itemDoesNotExist() : versionIs(next.version);
  try {
    await ctx.client.send(
      new PutItemCommand({
        TableName: ctx.tableName,
        Item: controllerStateItem(next, next.version + 1),
        ...conditionFields(condition),
      }),
    );
    return { ok: true };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return { ok: false };
    throw error;
  }
}
