/**
 * The mass-detach window kept in the state table: invocations on clients of their own claim from
 * one item, so together they never get more than one limit per window.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoMassDetachWindow } from '../../lambda/adapters/dynamodb/mass-detach-window.js';
import { CorruptItemError } from '../../lambda/adapters/dynamodb/volume-store.js';
import { useLocalDynamo } from '../support/local-dynamo.js';
import { T0 } from './builders.js';

const local = useLocalDynamo();
const WINDOW_MS = 300_000;
const request = (wanted: number, limit = 6) => ({ wanted, limit, windowMs: WINDOW_MS });

async function windows(count: number) {
  const { tableName, store, client } = await local.freshTable();
  const one = () => new DynamoMassDetachWindow({ client: local.running().newClient(), tableName });
  return { all: Array.from({ length: count }, one), store, client, tableName };
}

describe('the shared mass-detach window', () => {
  it('ten invocations claiming at one instant are granted one limit between them', async () => {
    const { all } = await windows(10);
    const granted = await Promise.all(all.map((window) => window.claim(request(4), T0)));
    expect(granted.reduce((a, b) => a + b, 0)).toBe(6);
    expect(granted.every((g) => g >= 0 && g <= 4)).toBe(true);
  });

  it('a later claim within the window gets what is left; once the window has passed, a full limit again', async () => {
    const { all } = await windows(2);
    const [a, b] = [all[0]!, all[1]!];
    expect(await a.claim(request(4), T0)).toBe(4);
    expect(await b.claim(request(4), T0 + 60_000)).toBe(2);
    expect(await a.claim(request(4), T0 + 120_000)).toBe(0);
    expect(await b.claim(request(4), T0 + 60_000 + WINDOW_MS)).toBe(4);
  });

  it("the store's scan passes over the window item", async () => {
    const { all, store } = await windows(1);
    await all[0]!.claim(request(3), T0);
    expect(await store.scan()).toMatchObject({ records: new Map(), corrupt: [] });
  });

  it('an unreadable window item is an error, never an empty window', async () => {
    const { all, client, tableName } = await windows(1);
    await client.send(
      new PutItemCommand({ TableName: tableName, Item: { pk: { S: 'guard#mass-detach' }, claims: { S: 'x' }, version: { N: '1' } } }),
    );
    await expect(all[0]!.claim(request(3), T0)).rejects.toBeInstanceOf(CorruptItemError);
  });
});
