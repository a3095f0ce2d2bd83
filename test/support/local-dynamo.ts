/**
 * The DynamoDB a store test runs against, a fresh table per test: dynalite (one per test file)
 * in the `unit` project, and AWS's DynamoDB Local (one per run, started by the project's global
 * setup) in the `dynamodb-local` project, so the contract suite is proven on both.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import { DynamoVolumeStore, type DynamoVolumeStoreOptions } from '../../lambda/adapters/dynamodb/volume-store.js';
import { createVolumeTable, localDynamoClients, startLocalDynamo, type LocalDynamo } from '../../sandbox/dynamodb.js';

export type DynamoBackend = 'dynalite' | 'dynamodb-local';

/** Set by the `dynamodb-local` project's global setup; dynalite otherwise. */
export const backend: DynamoBackend = inject('dynamoDbLocalEndpoint') ? 'dynamodb-local' : 'dynalite';

export interface LocalTable {
  tableName: string;
  client: DynamoDBClient;
  store: DynamoVolumeStore;
  /** A store on its own client (a new one unless given): another invocation of the controller. */
  otherStore: (options?: Partial<DynamoVolumeStoreOptions>) => DynamoVolumeStore;
}

export function useLocalDynamo() {
  let dynamo: LocalDynamo | undefined;
  // Test files share one DynamoDB Local: table names must not meet.
  const prefix = `volumes-${randomUUID().slice(0, 8)}`;
  let tables = 0;
  beforeAll(async () => {
    const endpoint = inject('dynamoDbLocalEndpoint');
    dynamo = endpoint ? localDynamoClients(endpoint) : await startLocalDynamo();
  });
  afterAll(async () => {
    await dynamo?.stop();
  });
  const running = (): LocalDynamo => {
    if (!dynamo) throw new Error(`${backend} is not running: call freshTable inside a test`);
    return dynamo;
  };
  return {
    running,
    /** A new table, a store on the shared client and a way to make stores on new clients. */
    async freshTable(options: Partial<DynamoVolumeStoreOptions> = {}): Promise<LocalTable> {
      const local = running();
      const tableName = `${prefix}-${++tables}`;
      await createVolumeTable(local.client, tableName);
      const store = new DynamoVolumeStore({ client: local.client, tableName, clock: () => 0, ...options });
      const otherStore = (more: Partial<DynamoVolumeStoreOptions> = {}) =>
        new DynamoVolumeStore({ tableName, clock: () => 0, ...options, ...more, client: more.client ?? local.newClient() });
      return { tableName, client: local.client, store, otherStore };
    },
  };
}
