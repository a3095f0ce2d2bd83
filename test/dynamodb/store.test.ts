import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { CorruptItemError, DynamoVolumeStore, InvalidWriteError } from '../../lambda/adapters/dynamodb/volume-store.js';
import { beginOperation, completeAttach, completeDetach, isEmpty, markReported, markUnreported } from '../../lambda/core/transitions.js';
import type { VolumeRecord } from '../../lambda/core/types.js';
import { LOCAL_REGION, meterCapacity } from '../../sandbox/dynamodb.js';
import { useLocalDynamo } from '../support/local-dynamo.js';
import { accepted, attachedRecord, attachInput, LEASE, stored, T0, volumeId } from './builders.js';

const local = useLocalDynamo();

/** The inputs of the commands a client sends, to check the exact conditions written. */
function recordInputs(client: DynamoDBClient): Record<string, unknown>[] {
  const inputs: Record<string, unknown>[] = [];
  client.middlewareStack.add(
    (next) => async (args) => {
      inputs.push(args.input as Record<string, unknown>);
      return next(args);
    },
    { step: 'initialize', name: 'recordInputs' },
  );
  return inputs;
}

describe('the conditions each write sends', () => {
  it('create: item does not exist or is a tombstone; update: version is; fenced: and operation is held by; remove: and holds nothing', async () => {
    const { otherStore } = await local.freshTable();
    const client = local.running().newClient();
    const inputs = recordInputs(client);
    const store = otherStore({ client });
    const vol = volumeId(1);
    const created = stored(await store.put(accepted(beginOperation(undefined, attachInput(vol, 'a', { operationId: 'op-1' }), T0, LEASE))));
    const completed = stored(
      await store.put(accepted(completeAttach(created, 'op-1', '/dev/xvdaa', T0)), { lockKey: 'volume', operationId: 'op-1' }),
    );
    const reported = stored(await store.put(accepted(markReported(completed, 'a', true, 'pass-1'))));
    const empty = { ...reported, attachments: {} };
    await store.remove(empty);

    expect(inputs.map((i) => [i.ConditionExpression, i.ExpressionAttributeValues])).toEqual([
      ['(attribute_not_exists(#pk)) OR (attribute_exists(#removedAt))', inputs[0]?.ExpressionAttributeValues],
      [
        '(#version = :expectedVersion) AND (#operations.#lockKey.#operationId = :operationId)',
        { ':expectedVersion': { N: '1' }, ':operationId': { S: 'op-1' } },
      ],
      ['#version = :expectedVersion', { ':expectedVersion': { N: '2' } }],
      [
        '(#version = :expectedVersion) AND (size(#attachments) = :empty AND size(#operations) = :empty)',
        { ':expectedVersion': { N: '3' }, ':empty': { N: '0' } },
      ],
    ]);
    expect(inputs[0]?.UpdateExpression).toMatch(/#version = if_not_exists\(#version, :zero\) \+ :one REMOVE #removedAt, #ttl$/);
    expect(inputs[1]?.ExpressionAttributeNames).toEqual({
      '#version': 'version',
      '#operations': 'operations',
      '#lockKey': 'volume',
      '#operationId': 'id',
    });
    expect([created.version, completed.version, reported.version]).toEqual([1, 2, 3]);
  });
});

describe('put', () => {
  it('refuses to store a record that would be read back as corrupt', async () => {
    const { store } = await local.freshTable();
    const record = attachedRecord(volumeId(2), 'a', 0);
    const misfiled = { ...record, attachments: { b: record.attachments.a! } };
    await expect(store.put(misfiled)).rejects.toThrow(InvalidWriteError);
    await expect(store.put(misfiled)).rejects.toThrow(/attachments\.b: holds node a/);
  });

  it('round-trips a record with every optional field', async () => {
    const { store } = await local.freshTable();
    const vol = volumeId(3);
    const record: VolumeRecord = {
      ...attachedRecord(vol, 'a', 0),
      multiAttach: true,
      accessModes: ['ReadWriteMany'],
      attachments: {
        a: { ...attachedRecord(vol, 'a').attachments.a!, detachRequestedAt: T0, listingClaims: { 'pass-1': T0 + 30_000 } },
        b: { nodeName: 'b', instanceId: 'i-b', state: 'uncertain', mounted: false, reported: false, since: T0 },
      },
      operations: {
        'node:b': {
          id: 'op',
          kind: 'attach',
          nodeName: 'b',
          instanceId: 'i-b',
          device: '/dev/xvdab',
          ec2Force: false,
          startedAt: T0,
          leaseExpiresAt: T0 + 1,
          prior: { state: 'uncertain' },
        },
      },
      backoff: { 'attach:b': { failures: 2, notBefore: T0 + 1000, lastError: 'boom' } },
    };
    const written = stored(await store.put(record));
    expect(await store.get(vol)).toEqual(written);
    expect(written).toEqual({ ...record, version: 1 });
  });
});

describe('configuration', () => {
  it('reaches a local table through the standard AWS_ENDPOINT_URL_DYNAMODB, read by the SDK itself', async () => {
    const { tableName } = await local.freshTable();
    const saved = process.env.AWS_ENDPOINT_URL_DYNAMODB;
    process.env.AWS_ENDPOINT_URL_DYNAMODB = local.running().endpoint;
    const client = new DynamoDBClient({ region: LOCAL_REGION, credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' } });
    try {
      const store = new DynamoVolumeStore({ client, tableName, clock: () => 0 });
      expect((await store.put(attachedRecord(volumeId(9), 'a', 0))).ok).toBe(true);
    } finally {
      client.destroy();
      if (saved === undefined) delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
      else process.env.AWS_ENDPOINT_URL_DYNAMODB = saved;
    }
  });

  it('needs a table name', () => {
    expect(() => new DynamoVolumeStore({ client: local.running().client, tableName: '', clock: () => 0 })).toThrow(/table name/);
  });
});

describe('controller state', () => {
  it('is compare-and-swapped, lives beside the volumes, is never scanned as one, and a scan hands it back', async () => {
    const { store, otherStore } = await local.freshTable();
    expect(await store.getControllerState()).toEqual({ version: 0 });
    expect(await store.putControllerState({ seededAt: T0, version: 0 })).toEqual({ ok: true });
    expect(await otherStore().putControllerState({ seededAt: T0 + 1, version: 0 })).toEqual({ ok: false });
    expect(await store.putControllerState({ seededAt: T0, lastVerifiedAt: T0 + 5, version: 1 })).toEqual({ ok: true });
    expect(await store.putControllerState({ lastVerifiedAt: T0 + 9, version: 1 })).toEqual({ ok: false });
    expect(await store.getControllerState()).toEqual({ seededAt: T0, lastVerifiedAt: T0 + 5, version: 2 });
    expect(await store.scan()).toEqual({
      records: new Map(),
      corrupt: [],
      controllerState: { seededAt: T0, lastVerifiedAt: T0 + 5, version: 2 },
    });
  });

  it("keeps a takeover's progress until the state is written without it", async () => {
    const { store } = await local.freshTable();
    const takeover = { startedAt: T0, through: volumeId(7), holder: { passId: 'pass-1', until: T0 + 300_000 } };
    await store.putControllerState({ takeover, version: 0 });
    expect(await store.getControllerState()).toEqual({ takeover, version: 1 });
    await store.putControllerState({ seededAt: T0, lastVerifiedAt: T0, version: 1 });
    expect(await store.getControllerState()).toEqual({ seededAt: T0, lastVerifiedAt: T0, version: 2 });
  });

  it('throws CorruptItemError when its item is unreadable', async () => {
    const { client, tableName, store } = await local.freshTable();
    await client.send(new PutItemCommand({ TableName: tableName, Item: { pk: { S: 'controller#state' }, version: { S: 'x' } } }));
    await expect(store.getControllerState()).rejects.toBeInstanceOf(CorruptItemError);
  });
});

describe('what one attach and one detach cost', () => {
  it('attach: read, begin, complete, report; detach: read, unreport, begin, complete, remove', async () => {
    const { otherStore } = await local.freshTable();
    const client = local.running().newClient();
    const meter = meterCapacity(client);
    const store = otherStore({ client });
    const vol = volumeId(4);

    const begun = stored(
      await store.put(accepted(beginOperation(await store.get(vol), attachInput(vol, 'a', { operationId: 'op-a' }), T0, LEASE))),
    );
    const attached = stored(
      await store.put(accepted(completeAttach(begun, 'op-a', '/dev/xvdaa', T0 + 1)), { lockKey: 'volume', operationId: 'op-a' }),
    );
    stored(await store.put(accepted(markReported(attached, 'a', true, 'pass-1'))));
    const attach = meter.totals();
    meter.reset();

    const read = (await store.get(vol))!;
    const unreported = stored(await store.put(accepted(markUnreported(read, 'a'))));
    const detaching = stored(
      await store.put(accepted(beginOperation(unreported, attachInput(vol, 'a', { kind: 'detach', operationId: 'op-d' }), T0 + 2, LEASE))),
    );
    const detached = stored(
      await store.put(accepted(completeDetach(detaching, 'op-d', T0 + 3)), { lockKey: 'volume', operationId: 'op-d' }),
    );
    expect(isEmpty(detached, T0 + 3)).toBe(true);
    expect(await store.remove(detached)).toEqual({ ok: true });
    const detach = meter.totals();

    expect(attach).toEqual({ reads: 1, writes: 3, readUnits: 1, writeUnits: 3 });
    expect(detach).toEqual({ reads: 1, writes: 4, readUnits: 1, writeUnits: 4 });
  });
});
