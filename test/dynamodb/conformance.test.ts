/**
 * What the store relies on the database for, evaluated by the database itself: each write's
 * ConditionExpression against every state an item can be in, and tombstones past their TTL.
 * Runs on dynalite (`unit` project) and on AWS's DynamoDB Local (`dynamodb-local` project).
 */
import {
  DeleteItemCommand,
  DescribeTimeToLiveCommand,
  GetItemCommand,
  PutItemCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { tombstoneItem, toItem, volumeKey } from '../../lambda/adapters/dynamodb/item.js';
import { beginOperation } from '../../lambda/core/transitions.js';
import type { VolumeRecord } from '../../lambda/core/types.js';
import { backend, useLocalDynamo, type LocalTable } from '../support/local-dynamo.js';
import { accepted, attachedRecord, attachInput, LEASE, T0, volumeId } from './builders.js';

const local = useLocalDynamo();
const VOLUME = volumeId(7);
const HELD = { lockKey: 'volume', operationId: 'op-held' };

/** The stored version of every live state below. */
const V = 4;
const idle: VolumeRecord = { ...attachedRecord(VOLUME, 'a', V), attachments: {} };
const attached: VolumeRecord = attachedRecord(VOLUME, 'a', V);
const operating: VolumeRecord = {
  ...accepted(beginOperation(idle, attachInput(VOLUME, 'b', { operationId: HELD.operationId }), T0, LEASE)),
  version: V,
};

type State = 'absent' | 'tombstone' | 'idle' | 'attached' | 'operating';

async function storeState(table: LocalTable, state: State): Promise<void> {
  const items = {
    absent: undefined,
    tombstone: tombstoneItem(VOLUME, V, T0, 3600),
    idle: toItem(idle, V),
    attached: toItem(attached, V),
    operating: toItem(operating, V),
  };
  const item = items[state];
  if (item) await table.client.send(new PutItemCommand({ TableName: table.tableName, Item: item }));
}

type Write = (table: LocalTable) => Promise<{ ok: boolean }>;

const writes: Record<string, Write> = {
  create: (t) => t.store.put({ ...idle, version: 0 }),
  'create fenced': (t) => t.store.put({ ...operating, version: 0 }, HELD),
  [`update at v${V}`]: (t) => t.store.put({ ...idle, version: V }),
  [`update at v${V - 1} (stale)`]: (t) => t.store.put({ ...idle, version: V - 1 }),
  [`update at v${V} fenced`]: (t) => t.store.put({ ...operating, version: V }, HELD),
  [`update at v${V} fenced by another op`]: (t) => t.store.put({ ...operating, version: V }, { ...HELD, operationId: 'op-other' }),
  [`remove at v${V}`]: (t) => t.store.remove({ ...idle, version: V }),
};

// ✓ the write lands, ✗ its condition fails (a conflict).
const matrix: [write: string, absent: string, tombstone: string, idle: string, attached: string, operating: string][] = [
  ['create', '✓', '✓', '✗', '✗', '✗'],
  ['create fenced', '✗', '✗', '✗', '✗', '✗'],
  [`update at v${V}`, '✗', '✓', '✓', '✓', '✓'],
  [`update at v${V - 1} (stale)`, '✗', '✗', '✗', '✗', '✗'],
  [`update at v${V} fenced`, '✗', '✗', '✗', '✗', '✓'],
  [`update at v${V} fenced by another op`, '✗', '✗', '✗', '✗', '✗'],
  [`remove at v${V}`, '✗', '✗', '✓', '✗', '✗'],
];
const states: State[] = ['absent', 'tombstone', 'idle', 'attached', 'operating'];

describe(`ConditionExpression matrix on ${backend}`, () => {
  it.each(matrix.flatMap(([write, ...outcomes]) => states.map((state, i) => [write, state, outcomes[i] as string] as const)))(
    '%s on %s: %s',
    async (write, state, expected) => {
      const table = await local.freshTable();
      await storeState(table, state);
      const result = await (writes[write] as Write)(table);
      expect(result.ok ? '✓' : '✗').toBe(expected);
    },
  );
});

/** A tombstone whose `ttl` (epoch seconds) is already past by the wall clock. */
function expiredTombstoneStore(table: LocalTable) {
  const removedAt = Date.now() - 2 * 24 * 3600_000;
  return table.otherStore({ clock: () => removedAt, tombstoneTtlSeconds: 3600 });
}

async function itemExists(table: LocalTable): Promise<boolean> {
  const got = await table.client.send(new GetItemCommand({ TableName: table.tableName, Key: volumeKey(VOLUME), ConsistentRead: true }));
  return got.Item !== undefined;
}

/**
 * How each backend gets rid of an expired item. DynamoDB Local runs TTL: its sweeper deletes the
 * item soon after TTL is enabled (polled, as a waiter polls). dynalite has no TTL (UpdateTimeToLive
 * is an unknown operation there): the deletion TTL would make is a plain DeleteItem.
 */
const expire: Record<typeof backend, (table: LocalTable) => Promise<void>> = {
  'dynamodb-local': async (table) => {
    await table.client.send(
      new UpdateTimeToLiveCommand({ TableName: table.tableName, TimeToLiveSpecification: { Enabled: true, AttributeName: 'ttl' } }),
    );
    const ttl = await table.client.send(new DescribeTimeToLiveCommand({ TableName: table.tableName }));
    expect(ttl.TimeToLiveDescription).toEqual({ TimeToLiveStatus: 'ENABLED', AttributeName: 'ttl' });
    for (let polls = 0; (await itemExists(table)) && polls < 100; polls += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  },
  dynalite: async (table) => {
    await table.client.send(new DeleteItemCommand({ TableName: table.tableName, Key: volumeKey(VOLUME) }));
  },
};

describe(`tombstones and TTL on ${backend}`, () => {
  it('a removed volume leaves a tombstone whose ttl is removedAt + tombstoneTtlSeconds, in epoch seconds', async () => {
    const table = await local.freshTable();
    await storeState(table, 'idle');
    const store = table.otherStore({ clock: () => T0, tombstoneTtlSeconds: 3600 });
    expect(await store.remove(idle)).toEqual({ ok: true });
    const got = await table.client.send(new GetItemCommand({ TableName: table.tableName, Key: volumeKey(VOLUME) }));
    expect(got.Item?.ttl).toEqual({ N: String(T0 / 1000 + 3600) });
  });

  it('a tombstone past its ttl that TTL has not deleted yet (DynamoDB may take days) reads as absent and is created over with the next version', async () => {
    const table = await local.freshTable();
    await storeState(table, 'idle');
    const store = expiredTombstoneStore(table);
    await store.remove(idle);
    expect(await store.get(VOLUME)).toBeUndefined();
    expect((await store.scan()).records.size).toBe(0);
    const created = await store.put({ ...idle, version: 0 });
    expect(created).toMatchObject({ ok: true, record: { version: V + 2 } });
  });

  it('once TTL has deleted the tombstone, the volume is absent and starts again at version 1; a writer holding the old version conflicts', async () => {
    const table = await local.freshTable();
    await storeState(table, 'idle');
    const store = expiredTombstoneStore(table);
    await store.remove(idle);
    await expire[backend](table);
    expect(await itemExists(table)).toBe(false);
    expect(await store.get(VOLUME)).toBeUndefined();
    expect(await store.put({ ...idle, version: 0 })).toMatchObject({ ok: true, record: { version: 1 } });
    expect(await store.put({ ...idle, version: V })).toEqual({ ok: false, reason: 'conflict' });
  });
});
