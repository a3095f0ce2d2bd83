/**
 * Device names reserved per EC2 instance, shared by every invocation (DESIGN §5). One item per
 * instance; one attribute per reserved name, so reserving a name is a single conditional write on
 * that attribute alone: two invocations attaching to one instance can never both get a name.
 *
 * Timeline of the race this prevents:
 *   A reads the instance (xvdaa free) · B reads the instance (xvdaa free)
 *   A reserves xvdaa (condition holds) · B reserves xvdaa → ConditionalCheckFailed, B takes xvdab
 *   A and B call AttachVolume with different names; neither is refused "already in use".
 */
import { ConditionalCheckFailedException, GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { z } from 'zod';
import type { InstanceId } from '../../core/types.js';
import type { DeviceHolder } from '../../ports/volume-store.js';
import type { StoreContext } from './context.js';
import { INSTANCE_PREFIX } from './item.js';

const DEVICE_ATTRIBUTE = 'device:';

const holderSchema = z.object({ volumeId: z.string(), operationId: z.string().min(1), expiresAt: z.number().int().nonnegative() });

const instanceKey = (instanceId: InstanceId) => marshall({ pk: `${INSTANCE_PREFIX}${instanceId}` });

export async function reservedDevices(ctx: StoreContext, instanceId: InstanceId, now: number): Promise<Map<string, DeviceHolder>> {
  const { Item: item } = await ctx.client.send(
    new GetItemCommand({ TableName: ctx.tableName, Key: instanceKey(instanceId), ConsistentRead: true }),
  );
  const held = new Map<string, DeviceHolder>();
  for (const [attribute, value] of Object.entries(item === undefined ? {} : unmarshall(item))) {
    if (!attribute.startsWith(DEVICE_ATTRIBUTE)) continue;
    const holder = holderSchema.safeParse(value);
    // An unreadable reservation is treated as held: a name is never handed out on a guess.
    const live = holder.success ? holder.data : { volumeId: '', operationId: 'unreadable', expiresAt: Number.MAX_SAFE_INTEGER };
    if (live.expiresAt > now) held.set(attribute.slice(DEVICE_ATTRIBUTE.length), live);
  }
  return held;
}

export async function reserveDevice(
  ctx: StoreContext,
  instanceId: InstanceId,
  device: string,
  holder: DeviceHolder,
  now: number,
  takeFrom = holder.operationId,
): Promise<boolean> {
  try {
    await ctx.client.send(
      new UpdateItemCommand({
        TableName: ctx.tableName,
        Key: instanceKey(instanceId),
        UpdateExpression: 'SET #device = :holder',
        // Free, expired, or already ours: anything else belongs to a live operation of another invocation.
        ConditionExpression: 'attribute_not_exists(#device) OR #device.expiresAt <= :now OR #device.operationId = :takeFrom',
        ExpressionAttributeNames: { '#device': `${DEVICE_ATTRIBUTE}${device}` },
        ExpressionAttributeValues: marshall({ ':holder': holder, ':now': now, ':takeFrom': takeFrom }),
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export async function releaseDevice(ctx: StoreContext, instanceId: InstanceId, device: string, operationId: string): Promise<void> {
  try {
    await ctx.client.send(
      new UpdateItemCommand({
        TableName: ctx.tableName,
        Key: instanceKey(instanceId),
        UpdateExpression: 'REMOVE #device',
        ConditionExpression: '#device.operationId = :operationId',
        ExpressionAttributeNames: { '#device': `${DEVICE_ATTRIBUTE}${device}` },
        ExpressionAttributeValues: marshall({ ':operationId': operationId }),
      }),
    );
  } catch (error) {
    // Taken over (the lease ran out) or already released: nothing of ours to free.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
