/**
 * The actual state a takeover would have written, put straight into DynamoDB in the store's item
 * format (BatchWriteItem, 25 items a request, a few requests at a time), so a large size starts in
 * steady state without paying for a takeover pass first: every attachment `attached`, mounted and
 * reported, and the controller state marked seeded and verified through the real store.
 */
import { BatchWriteItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import pLimit from 'p-limit';
import { toItem, type Item } from '../lambda/adapters/dynamodb/item.js';
import { uniqueNameFor } from '../lambda/core/volume-id.js';
import type { VolumeRecord } from '../lambda/core/types.js';
import type { VolumeStore } from '../lambda/ports/volume-store.js';
import type { GeneratedCluster } from '../sandbox/generate/model.js';

async function writeAll(client: DynamoDBClient, tableName: string, items: Item[]): Promise<void> {
  const limit = pLimit(8);
  const chunks = Array.from({ length: Math.ceil(items.length / 25) }, (_, i) => items.slice(i * 25, i * 25 + 25));
  await Promise.all(
    chunks.map((chunk) =>
      limit(async () => {
        let pending = chunk.map((item) => ({ PutRequest: { Item: item } }));
        while (pending.length > 0) {
          const output = await client.send(new BatchWriteItemCommand({ RequestItems: { [tableName]: pending } }));
          pending = (output.UnprocessedItems?.[tableName] ?? []) as typeof pending;
        }
      }),
    ),
  );
}

export async function seedActualState(
  store: VolumeStore,
  table: { client: DynamoDBClient; tableName: string },
  cluster: GeneratedCluster,
  now: number,
): Promise<number> {
  const nodes = new Map(cluster.nodes.map((n) => [n.name, n]));
  const records = new Map<string, VolumeRecord>();
  for (const volume of cluster.volumes) {
    records.set(volume.volumeId, {
      volumeId: volume.volumeId,
      uniqueName: uniqueNameFor(volume.volumeId),
      accessModes: volume.accessModes,
      multiAttach: volume.multiAttach,
      attachments: {},
      operations: {},
      backoff: {},
      version: 0,
    });
  }
  for (const a of cluster.attached) {
    const record = records.get(a.volumeId) as VolumeRecord;
    record.attachments[a.nodeName] = {
      nodeName: a.nodeName,
      instanceId: nodes.get(a.nodeName)?.instanceId ?? '',
      state: 'attached',
      device: a.device,
      mounted: true,
      reported: true,
      since: now,
    };
  }
  const attached = [...records.values()].filter((r) => Object.keys(r.attachments).length > 0);
  await writeAll(
    table.client,
    table.tableName,
    attached.map((r) => toItem(r, 1)),
  );
  const state = await store.getControllerState();
  const marked = await store.putControllerState({ ...state, seededAt: now, lastVerifiedAt: now });
  if (!marked.ok) throw new Error('seeding the controller state failed');
  return attached.length;
}
