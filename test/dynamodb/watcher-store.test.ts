/**
 * The watchers' lease and checkpoints in the state table: invocations on clients of their own
 * swap one lease item (only one of two concurrent joins lands), checkpoints are kept per kind, and
 * neither item is taken for a volume by the store's scan.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoWatcherStore } from '../../lambda/adapters/dynamodb/watcher-store.js';
import { CorruptItemError } from '../../lambda/adapters/dynamodb/volume-store.js';
import { joinLease } from '../../lambda/core/watch.js';
import { useLocalDynamo } from '../support/local-dynamo.js';
import { T0 } from './builders.js';

const local = useLocalDynamo();

async function stores(count: number) {
  const { tableName, store, client } = await local.freshTable();
  const one = () => new DynamoWatcherStore({ client: local.running().newClient(), tableName });
  return { all: Array.from({ length: count }, one), store, client, tableName };
}

describe('the watcher lease', () => {
  it('starts empty at version 0; a write swaps on the version read, so of two joins from one read only one lands', async () => {
    const { all } = await stores(2);
    const [a, b] = [all[0]!, all[1]!];
    const read = await a.readLease();
    expect(read).toEqual({ holders: {}, version: 0 });
    const joins = ['a', 'b'].map((id) => joinLease(read, id, T0, T0 + 300_000));
    const written = await Promise.all(joins.map((j, i) => (j.join ? [a, b][i]!.writeLease(j.next) : Promise.resolve(false))));
    expect(written.filter(Boolean)).toHaveLength(1);
    const after = await b.readLease();
    expect(after.version).toBe(1);
    expect(Object.keys(after.holders)).toHaveLength(1);
  });

  it('an unreadable lease is an error, never an empty lease', async () => {
    const { all, client, tableName } = await stores(1);
    await client.send(
      new PutItemCommand({ TableName: tableName, Item: { pk: { S: 'watcher#lease' }, holders: { S: 'x' }, version: { N: '1' } } }),
    );
    await expect(all[0]!.readLease()).rejects.toBeInstanceOf(CorruptItemError);
  });
});

describe('checkpoints', () => {
  it('are kept per kind, the last write winning; a kind without one (or with an unreadable one) is absent', async () => {
    const { all, client, tableName } = await stores(2);
    const [a, b] = [all[0]!, all[1]!];
    expect(await a.readCheckpoints(['pods', 'nodes'])).toEqual({});
    await a.saveCheckpoint('pods', { resourceVersion: '120', savedAt: T0 });
    await b.saveCheckpoint('pods', { resourceVersion: '118', savedAt: T0 + 1 });
    await client.send(
      new PutItemCommand({ TableName: tableName, Item: { pk: { S: 'watcher#checkpoint#nodes' }, resourceVersion: { N: '5' } } }),
    );
    expect(await a.readCheckpoints(['pods', 'nodes', 'volumeattachments'])).toEqual({ pods: { resourceVersion: '118', savedAt: T0 + 1 } });
  });

  it("the store's scan passes over the lease and the checkpoints", async () => {
    const { all, store } = await stores(1);
    const watcher = all[0]!;
    const join = joinLease(await watcher.readLease(), 'a', T0, T0 + 1);
    if (join.join) await watcher.writeLease(join.next);
    await watcher.saveCheckpoint('volumeattachments', { resourceVersion: '7', savedAt: T0 });
    expect(await store.scan()).toMatchObject({ records: new Map(), corrupt: [] });
  });
});
