import { BatchWriteItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { toItem, type Item } from '../../lambda/adapters/dynamodb/item.js';
import { CorruptItemError, UnprocessedKeysError, VolumeStoreError } from '../../lambda/adapters/dynamodb/volume-store.js';
import { injectDynamoFaults, InjectedFault } from '../../sandbox/dynamodb.js';
import type { ReadResult, VolumeStore } from '../../lambda/ports/volume-store.js';
import { useLocalDynamo, type LocalTable } from '../support/local-dynamo.js';
import { attachedRecord, volumeId } from './builders.js';

const local = useLocalDynamo();

/** Writes items 25 a request (BatchWriteItem's limit), a few requests at a time, retrying unprocessed ones. */
async function seed(client: DynamoDBClient, tableName: string, items: Item[]): Promise<void> {
  const chunks = Array.from({ length: Math.ceil(items.length / 25) }, (_, i) => items.slice(i * 25, i * 25 + 25));
  const writeChunk = async (chunk: Item[]) => {
    let pending = chunk.map((item) => ({ PutRequest: { Item: item } }));
    while (pending.length > 0) {
      const output = await client.send(new BatchWriteItemCommand({ RequestItems: { [tableName]: pending } }));
      pending = (output.UnprocessedItems?.[tableName] ?? []) as typeof pending;
    }
  };
  for (let i = 0; i < chunks.length; i += 8) await Promise.all(chunks.slice(i, i + 8).map(writeChunk));
}

const volumeItems = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => toItem(attachedRecord(volumeId(from + i), 'a'), 1));
const ids = (count: number, from = 0) => Array.from({ length: count }, (_, i) => volumeId(from + i));

/** Counts the items every Scan page carried, to prove none came twice. */
function countScannedItems(client: DynamoDBClient): () => number {
  let items = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName === 'ScanCommand') items += (result.output as { Items?: unknown[] }).Items?.length ?? 0;
      return result;
    },
    { step: 'initialize', name: 'countScannedItems' },
  );
  return () => items;
}

describe('scan', () => {
  const VOLUMES = 3000;
  const notVolumes: Item[] = [
    { pk: { S: 'controller#state' }, version: { N: '1' }, lastVerifiedAt: { N: '5' } },
    { pk: { S: `volume#${volumeId(99_999)}` }, version: { N: '4' }, removedAt: { N: '5' }, ttl: { N: '1' } },
  ];
  // Seeded once, read by both rows.
  let seeded: Promise<LocalTable> | undefined;
  const seededTable = () =>
    (seeded ??= local.freshTable().then(async (table) => {
      await seed(table.client, table.tableName, [...volumeItems(VOLUMES), ...notVolumes]);
      return table;
    }));

  it.each([1, 4])(
    'returns each of several thousand volumes exactly once over many pages, and the controller state (%i segments)',
    async (segments) => {
      const { otherStore } = await seededTable();
      const scanner = local.running().newClient();
      const scanned = countScannedItems(scanner);
      const faults = injectDynamoFaults(scanner, {}); // no faults: it only counts the pages asked for
      const { records, corrupt, controllerState } = await otherStore({ client: scanner, scanPageSize: 250 }).scan({ segments });
      expect(corrupt).toEqual([]);
      expect(controllerState).toEqual({ version: 1, lastVerifiedAt: 5 });
      expect([...records.keys()].sort()).toEqual(ids(VOLUMES).sort());
      expect(scanned()).toBe(VOLUMES + notVolumes.length);
      expect(faults.calls.get('ScanCommand')).toBeGreaterThanOrEqual(Math.ceil((VOLUMES + 2) / 250));
    },
  );

  it.each([1, 4])('fails as a whole when a page fails mid-scan, never returning a short list (%i segments)', async (segments) => {
    const { client, tableName, otherStore } = await local.freshTable();
    await seed(client, tableName, volumeItems(600));
    const scanner = local.running().newClient();
    injectDynamoFaults(scanner, { failScanPage: 3 });
    const scan = otherStore({ client: scanner, scanPageSize: 100 }).scan({ segments });
    await expect(scan).rejects.toThrow(VolumeStoreError);
    await expect(scan).rejects.toThrow(/scan of volumes-[\w-]+ failed on page \d+ of segment \d\/\d: injected failure of Scan page 3/);
    expect(((await scan.catch((error: unknown) => error)) as Error).cause).toBeInstanceOf(InjectedFault);
  });

  it('a segmented scan returns the records and corrupt items in segment order, whichever segment answers first', async () => {
    const { client, tableName, otherStore } = await local.freshTable();
    const corrupt = Array.from({ length: 6 }, (_, i) => ({ pk: { S: `user#${i}` }, name: { S: 'x' } }));
    await seed(client, tableName, [...volumeItems(400), ...corrupt]);
    /** Holds back every page of one segment until the others have answered. */
    const slowSegment = (slow: number) => {
      const scanner = local.running().newClient();
      scanner.middlewareStack.add(
        (next) => async (args) => {
          const segment = (args.input as { Segment?: number }).Segment;
          if (segment === slow) await new Promise((resolve) => setTimeout(resolve, 60));
          return next(args);
        },
        { step: 'initialize', name: 'slowSegment' },
      );
      return otherStore({ client: scanner, scanPageSize: 50 });
    };
    const reads = await Promise.all([0, 3].map((slow) => slowSegment(slow).scan({ segments: 4 })));
    const [first, last] = reads.map((read) => ({ records: [...read.records.keys()], corrupt: read.corrupt.map((c) => c.key) }));
    expect(first?.records).toHaveLength(400);
    expect(first?.corrupt).toHaveLength(6);
    expect(last).toEqual(first);
  });

  it('refuses a segment count DynamoDB would reject', async () => {
    const { store } = await local.freshTable();
    await expect(store.scan({ segments: 0 })).rejects.toThrow(/integer from 1/);
    await expect(store.scan({ segments: 1.5 })).rejects.toThrow(VolumeStoreError);
  });
});

describe('corrupted and foreign items', () => {
  const good = toItem(attachedRecord(volumeId(3), 'a'), 1);
  const corruptItems: [string, Item, RegExp][] = [
    ['a foreign item', { pk: { S: 'user#42' }, name: { S: 'x' } }, /not a volume item/],
    [
      'a volume item missing fields',
      { pk: { S: `volume#${volumeId(1)}` }, volumeId: { S: volumeId(1) }, version: { N: '1' } },
      /uniqueName: .*; .*multiAttach/,
    ],
    ['a version of the wrong type', { ...toItem(attachedRecord(volumeId(2), 'a'), 1), version: { S: 'one' } }, /^version: /],
    [
      'an unknown attachment state',
      { ...good, attachments: { M: { a: { M: { ...good.attachments!.M!.a!.M!, state: { S: 'floating' } } } } } },
      /^attachments\.a\.state: /,
    ],
    [
      'a key that does not match the volume id',
      { ...toItem(attachedRecord(volumeId(4), 'a'), 1), pk: { S: `volume#${volumeId(5)}` } },
      /does not match the key/,
    ],
    [
      'a number beyond precision',
      { ...toItem(attachedRecord(volumeId(6), 'a'), 1), version: { N: '123456789012345678901234567890' } },
      /^version: .*bigint/,
    ],
    ['a version never stored', toItem(attachedRecord(volumeId(7), 'a'), 0), /at least 1/],
  ];
  const reported = (rows: typeof corruptItems) =>
    rows
      .map(([, item, problem]) => ({ key: item.pk?.S, problem: expect.stringMatching(problem) as string }))
      .sort((a, b) => String(a.key).localeCompare(String(b.key)));

  it.each<[string, (store: VolumeStore) => Promise<ReadResult>, typeof corruptItems]>([
    ['scan', (store) => store.scan(), corruptItems],
    ['a scan in 3 segments', (store) => store.scan({ segments: 3 }), corruptItems],
    ['getMany', (store) => store.getMany([...ids(8), ...ids(3, 100)]), corruptItems.slice(1)],
  ])('%s reports each with its key and a clear problem, and returns the rest', async (_name, read, expected) => {
    const { client, tableName, store } = await local.freshTable();
    await seed(client, tableName, [...volumeItems(3, 100), ...corruptItems.map(([, item]) => item)]);
    const result = await read(store);
    expect([...result.records.keys()].sort()).toEqual(ids(3, 100));
    expect([...result.corrupt].sort((a, b) => a.key.localeCompare(b.key))).toEqual(reported(expected));
  });

  it('get of a corrupt item throws CorruptItemError naming the key', async () => {
    const { client, tableName, store } = await local.freshTable();
    await client.send(new PutItemCommand({ TableName: tableName, Item: corruptItems[2]![1] }));
    await expect(store.get(volumeId(2))).rejects.toMatchObject({
      name: 'CorruptItemError',
      key: `volume#${volumeId(2)}`,
      problem: expect.stringMatching(/^version: /) as string,
    });
    await expect(store.get(volumeId(2))).rejects.toBeInstanceOf(CorruptItemError);
  });
});

/** BatchGetItem's items handed back sorted by key from last to first, on every backend alike. */
function answerBatchGetsReversed(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName !== 'BatchGetItemCommand') return result;
      const output = result.output as { Responses?: Record<string, Item[]> };
      const key = (item: Item) => JSON.stringify(item.pk);
      for (const items of Object.values(output.Responses ?? {})) items.sort((a, b) => key(b).localeCompare(key(a)));
      return result;
    },
    { step: 'initialize', name: 'answerBatchGetsReversed' },
  );
}

describe('getMany', () => {
  it('retries unprocessed keys until every record is read', async () => {
    const { client, tableName, otherStore } = await local.freshTable();
    await seed(client, tableName, volumeItems(250));
    const reader = local.running().newClient();
    const faults = injectDynamoFaults(reader, { unprocessedBatchGets: 2 });
    const { records, corrupt } = await otherStore({ client: reader, batchGetRetry: { maxAttempts: 4, baseDelayMs: 1 } }).getMany([
      ...ids(250),
      ...ids(10),
      volumeId(5000),
    ]);
    expect(corrupt).toEqual([]);
    expect([...records.keys()].sort()).toEqual(ids(250).sort());
    // 100 + 100 + 50 keys; the first call processed half, its retry half again, then the rest went through.
    expect(faults.calls.get('BatchGetItemCommand')).toBe(5);
  });

  it('fails with the keys DynamoDB never processed once the retries are spent', async () => {
    const { client, tableName, otherStore } = await local.freshTable();
    await seed(client, tableName, volumeItems(4));
    const reader = local.running().newClient();
    injectDynamoFaults(reader, { unprocessedBatchGets: 100 });
    const read = otherStore({ client: reader, batchGetRetry: { maxAttempts: 3, baseDelayMs: 1 } }).getMany(ids(4));
    await expect(read).rejects.toBeInstanceOf(UnprocessedKeysError);
    await expect(read).rejects.toMatchObject({ keys: [`volume#${volumeId(3)}`] });
  });

  it('hands records and corrupt items back in the order asked, whatever order BatchGetItem answers in', async () => {
    const { client, tableName, otherStore } = await local.freshTable();
    const neverStored = toItem(attachedRecord(volumeId(20), 'a'), 0);
    const wrongVersion = { ...toItem(attachedRecord(volumeId(21), 'a'), 1), version: { S: 'one' } };
    await seed(client, tableName, [...volumeItems(6, 10), neverStored, wrongVersion]);
    const reader = local.running().newClient();
    answerBatchGetsReversed(reader);
    // DynamoDB promises no order within a batch's answer (dynalite shuffles it): a pass that walked the
    // records in that order wrote its facts in an order no seed controls.
    const asked = [13, 20, 10, 15, 21, 12, 11, 14].map((n) => volumeId(n));
    const { records, corrupt } = await otherStore({ client: reader }).getMany(asked);
    expect([...records.keys()]).toEqual([13, 10, 15, 12, 11, 14].map((n) => volumeId(n)));
    expect(corrupt.map((c) => c.key)).toEqual([`volume#${volumeId(20)}`, `volume#${volumeId(21)}`]);
  });

  it('asks nothing for no ids', async () => {
    const { store } = await local.freshTable();
    expect(await store.getMany([])).toEqual({ records: new Map(), corrupt: [] });
  });
});
