/**
 * The handover record kept in the state table: passes enter only while writes are on, so a
 * handback that turns them off sees, in one read after its own write, every pass that may still act;
 * the shared fields are compared and swapped on their version.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoHandoverStore } from '../../lambda/adapters/dynamodb/handover.js';
import { CorruptItemError } from '../../lambda/adapters/dynamodb/volume-store.js';
import { NO_HANDOVER } from '../../lambda/core/attacher/handover.js';
import { useLocalDynamo } from '../support/local-dynamo.js';
import { T0 } from './builders.js';

const local = useLocalDynamo();

async function stores(count: number) {
  const { tableName, store, client } = await local.freshTable();
  const one = () => new DynamoHandoverStore({ client: local.running().newClient(), tableName });
  return { all: Array.from({ length: count }, one), store, client, tableName };
}

describe('the handover record', () => {
  it('reads as writes on, nothing observed, no pass, before anything was written', async () => {
    const { all } = await stores(1);
    expect(await all[0]!.read()).toEqual(NO_HANDOVER);
  });

  it('passes enter and leave; an entry names the time by which the pass has surely stopped', async () => {
    const [a, b] = (await stores(2)).all as [DynamoHandoverStore, DynamoHandoverStore];
    expect(await a.enter('pass-1', T0 + 315_000)).toEqual({ entered: true, state: { ...NO_HANDOVER, passes: { 'pass-1': T0 + 315_000 } } });
    expect((await b.enter('pass-2', T0 + 135_000)).state.passes).toEqual({ 'pass-1': T0 + 315_000, 'pass-2': T0 + 135_000 });
    await a.leave(['pass-1', 'gone-long-ago']);
    expect((await b.read()).passes).toEqual({ 'pass-2': T0 + 135_000 });
  });

  it('the shared fields are swapped on their version: a writer that read an older version loses', async () => {
    const [a, b] = (await stores(2)).all as [DynamoHandoverStore, DynamoHandoverStore];
    await a.enter('pass-1', T0);
    const observation = { resourceVersion: '41', seenAt: T0, holder: 'ebs-csi-controller-0', durationSeconds: 15, renewTime: T0 - 2_000 };
    expect(await a.update({ observation }, 0)).toBe('ok');
    expect(await b.update({ observation: { resourceVersion: '42', seenAt: T0 + 1 } }, 0)).toBe('conflict');
    expect(await b.update({ heldSince: T0 + 16_000, observation: null }, 1)).toBe('ok');
    expect(await a.read()).toEqual({ version: 2, writes: 'on', heldSince: T0 + 16_000, passes: { 'pass-1': T0 } });
  });

  it('once a handback turned writes off, no pass enters, and the handback sees every pass that entered before', async () => {
    const { all } = await stores(11);
    const [handback, ...passes] = all as [DynamoHandoverStore, ...DynamoHandoverStore[]];
    const entering = passes.map((store, i) => store.enter(`pass-${i}`, T0 + i));
    const state = await handback.read();
    const flipped = await handback.update({ writes: 'off', writesChange: { at: T0, by: 'handback' } }, state.version);
    const results = await Promise.all(entering);
    const after = await handback.read();
    expect(flipped).toBe('ok');
    // Whatever the interleaving: the passes that entered are exactly the ones the handback's read lists.
    const entered = results.flatMap((r, i) => (r.entered ? [`pass-${i}`] : []));
    expect(Object.keys(after.passes).sort()).toEqual(entered.sort());
    expect(after).toMatchObject({ writes: 'off', writesChange: { at: T0, by: 'handback' } });
    expect(await passes[0]!.enter('late', T0)).toMatchObject({ entered: false, state: { writes: 'off' } });
    expect(Object.keys((await handback.read()).passes)).not.toContain('late');
  });

  it('throws CorruptItemError when its item is unreadable', async () => {
    const { all, client, tableName } = await stores(1);
    await client.send(new PutItemCommand({ TableName: tableName, Item: { pk: { S: 'handover#csi-attacher' }, writes: { S: 'maybe' } } }));
    await expect(all[0]!.read()).rejects.toBeInstanceOf(CorruptItemError);
  });

  it("the store's scan passes over the handover item", async () => {
    const { all, store } = await stores(1);
    await all[0]!.enter('pass-1', T0);
    const scanned = await store.scan();
    expect(scanned.corrupt).toEqual([]);
    expect(scanned.records.size).toBe(0);
  });
});
