/** One dynalite per test file, a fresh table per test: tests never see each other's items. */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { DynamoVolumeStore, type DynamoVolumeStoreOptions } from '../../lambda/adapters/dynamodb/volume-store.js';
import { createVolumeTable, startLocalDynamo, type LocalDynamo } from '../../sandbox/dynamodb.js';

export interface LocalTable {
  tableName: string;
  client: DynamoDBClient;
  store: DynamoVolumeStore;
  /** A store on its own client (a new one unless given): another invocation of the controller. */
  otherStore: (options?: Partial<DynamoVolumeStoreOptions>) => DynamoVolumeStore;
}

export function useLocalDynamo() {
  let dynamo: LocalDynamo | undefined;
  let tables = 0;
  beforeAll(async () => {
    dynamo = await startLocalDynamo();
  });
  afterAll(async () => {
    await dynamo?.stop();
  });
  const running = (): LocalDynamo => {
    if (!dynamo) throw new Error('dynalite is not running: call freshTable inside a test');
    return dynamo;
  };
  return {
    running,
    /** A new table, a store on the shared client and a way to make stores on new clients. */
    async freshTable(options: Partial<DynamoVolumeStoreOptions> = {}): Promise<LocalTable> {
      const local = running();
      const tableName = `volumes-${++tables}`;
      await createVolumeTable(local.client, tableName);
      const store = new DynamoVolumeStore({ client: local.client, tableName, clock: () => 0, ...options });
      const otherStore = (more: Partial<DynamoVolumeStoreOptions> = {}) =>
        new DynamoVolumeStore({ tableName, clock: () => 0, ...options, ...more, client: more.client ?? local.newClient() });
      return { tableName, client: local.client, store, otherStore };
    },
  };
}
