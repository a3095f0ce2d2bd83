/**
 * Reads of volume items: one, a batch, or the whole table. Every item is validated; corrupt or
 * foreign items are reported with their key and skipped, tombstones and the controller-state
 * item are not volumes (a scan hands the latter back on its own, sparing a GetItem). A read
 * either returns everything asked for or throws.
 */
import { BatchGetItemCommand, GetItemCommand, paginateScan } from '@aws-sdk/client-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import type { VolumeId, VolumeRecord } from '../../core/types.js';
import type { ReadResult } from '../../ports/volume-store.js';
import type { StoreContext } from './context.js';
import { CorruptItemError, UnprocessedKeysError, VolumeStoreError } from './errors.js';
import { itemKey, parseControllerState, parseItem, volumeKey, type Item } from './item.js';

/** BatchGetItem takes at most 100 keys a call. */
const BATCH_GET_LIMIT = 100;
const MAX_SEGMENTS = 1_000_000;

function collect(items: Item[], into: ReadResult = { records: new Map(), corrupt: [] }): ReadResult {
  for (const item of items) {
    const parsed = parseItem(item);
    if (parsed.kind === 'volume') into.records.set(parsed.record.volumeId, parsed.record);
    else if (parsed.kind === 'corrupt') into.corrupt.push({ key: parsed.key, problem: parsed.problem });
    else if (parsed.kind === 'controller') {
      // An unreadable one is left for getControllerState to report, as before.
      const state = parseControllerState(item);
      if (!('problem' in state)) into.controllerState = state;
    }
  }
  return into;
}

export async function getVolume(ctx: StoreContext, volumeId: VolumeId): Promise<VolumeRecord | undefined> {
  const { Item: item } = await ctx.client.send(
    new GetItemCommand({
      TableName: ctx.tableName,
      Key: volumeKey(volumeId),
      ConsistentRead: ctx.consistentRead,
    }),
  );
  if (!item) return undefined;
  const parsed = parseItem(item);
  if (parsed.kind === 'corrupt') throw new CorruptItemError(parsed.key, parsed.problem);
  return parsed.kind === 'volume' ? parsed.record : undefined;
}

/**
 * Records and corrupt items in the order asked: BatchGetItem answers in no particular order
 * (dynalite shuffles it), and a pass walks its records in map order, so that order must be the caller's.
 */
export async function getVolumes(ctx: StoreContext, volumeIds: VolumeId[]): Promise<ReadResult> {
  const unique = [...new Set(volumeIds)];
  const result: ReadResult = { records: new Map(), corrupt: [] };
  for (let start = 0; start < unique.length; start += BATCH_GET_LIMIT) {
    collect(await batchGet(ctx, unique.slice(start, start + BATCH_GET_LIMIT).map(volumeKey)), result);
  }
  const ordered = new Map<VolumeId, VolumeRecord>();
  for (const id of unique) {
    const record = result.records.get(id);
    if (record !== undefined) ordered.set(id, record);
  }
  const rank = new Map(unique.map((id, index) => [itemKey(volumeKey(id)), index]));
  const corrupt = result.corrupt.toSorted((a, b) => (rank.get(a.key) ?? 0) - (rank.get(b.key) ?? 0));
  return { ...result, records: ordered, corrupt };
}

/** DynamoDB may return part of a batch as UnprocessedKeys (throttling, 16 MB); those are asked again. */
async function batchGet(ctx: StoreContext, keys: Item[]): Promise<Item[]> {
  const { maxAttempts, baseDelayMs } = ctx.batchGetRetry;
  const items: Item[] = [];
  let pending = keys;
  for (let attempt = 1; ; attempt++) {
    const output = await ctx.client.send(
      new BatchGetItemCommand({
        RequestItems: { [ctx.tableName]: { Keys: pending, ConsistentRead: ctx.consistentRead } },
      }),
    );
    items.push(...(output.Responses?.[ctx.tableName] ?? []));
    pending = output.UnprocessedKeys?.[ctx.tableName]?.Keys ?? [];
    if (pending.length === 0) return items;
    if (attempt >= maxAttempts) throw new UnprocessedKeysError(pending.map(itemKey), attempt);
    // Exponential backoff with jitter, as AWS advises for unprocessed batch keys.
    await sleep(baseDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
  }
}

export async function scanVolumes(ctx: StoreContext, segments = 1): Promise<ReadResult> {
  if (!Number.isInteger(segments) || segments < 1 || segments > MAX_SEGMENTS) {
    throw new VolumeStoreError(`scan segments must be an integer from 1 to ${MAX_SEGMENTS}, got ${segments}`);
  }
  const pages = await Promise.all(Array.from({ length: segments }, (_, segment) => scanSegment(ctx, segment, segments)));
  const result: ReadResult = { records: new Map(), corrupt: [] };
  for (const items of pages) collect(items, result);
  return result;
}

async function scanSegment(ctx: StoreContext, segment: number, totalSegments: number): Promise<Item[]> {
  const items: Item[] = [];
  let page = 0;
  const parallel = totalSegments > 1 ? { Segment: segment, TotalSegments: totalSegments } : {};
  try {
    const pages = paginateScan(
      { client: ctx.client, ...(ctx.scanPageSize ? { pageSize: ctx.scanPageSize } : {}) },
      { TableName: ctx.tableName, ConsistentRead: ctx.consistentRead, ...parallel },
    );
    for await (const output of pages) {
      page += 1;
      items.push(...(output.Items ?? []));
    }
  } catch (error) {
    throw new VolumeStoreError(
      `scan of ${ctx.tableName} failed on page ${page + 1} of segment ${segment + 1}/${totalSegments}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return items;
}
