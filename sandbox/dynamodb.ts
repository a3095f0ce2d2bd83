/**
 * A local DynamoDB for tests, the demo and benchmarks: dynalite in memory on a port the OS picks,
 * real SDK clients with fake credentials, the volume table as the CDK stack defines it, and
 * middleware hooks to inject faults and to meter consumed capacity.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { AttributeValue, ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import type { AddressInfo } from 'node:net';
import { ensureTable } from '../lambda/cli/table.js';

export const LOCAL_REGION = 'us-east-1';
const LOCAL_CREDENTIALS = { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local-secret' };

export interface LocalDynamo {
  endpoint: string;
  client: DynamoDBClient;
  /** Another client on the same server (a second "invocation"); destroyed by `stop`. */
  newClient(): DynamoDBClient;
  stop(): Promise<void>;
}

export function localDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
}

/** Clients of one local DynamoDB, all destroyed by `stop` (which leaves the server alone). */
export function localDynamoClients(endpoint: string): LocalDynamo {
  const clients = [localDynamoClient(endpoint)];
  return {
    endpoint,
    client: clients[0] as DynamoDBClient,
    newClient: () => {
      const client = localDynamoClient(endpoint);
      clients.push(client);
      return client;
    },
    stop: () => {
      for (const client of clients) client.destroy();
      return Promise.resolve();
    },
  };
}

export async function startLocalDynamo(options: { port?: number; host?: string } = {}): Promise<LocalDynamo> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const endpoint = `http://${host}:${(server.address() as AddressInfo).port}`;
  const pool = localDynamoClients(endpoint);
  return {
    ...pool,
    stop: async () => {
      await pool.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** The volume table as the CDK stack creates it (lambda/adapters/dynamodb/table-schema.ts owns the schema). */
export async function createVolumeTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await ensureTable(client, tableName);
}

/** Raised by injected faults; not a DynamoDB error, so the SDK does not retry it. */
export class InjectedFault extends Error {
  override name = 'InjectedFault';
}

export interface DynamoFaults {
  /** Fail the Nth Scan page request (1-based, counted across all segments). */
  failScanPage?: number;
  /** The first N BatchGetItem calls process only the first half of their keys; the rest come back as UnprocessedKeys. */
  unprocessedBatchGets?: number;
}

export interface MiddlewareHandle {
  /** Calls seen per command name, e.g. `ScanCommand`. */
  readonly calls: Map<string, number>;
  remove(): void;
}

let middlewareCount = 0;

type KeysAndAttributes = { Keys?: Record<string, AttributeValue>[] };

/** Fault injection as SDK middleware on the real client: requests before it are unchanged. */
export function injectDynamoFaults(client: DynamoDBClient, faults: DynamoFaults): MiddlewareHandle {
  const calls = new Map<string, number>();
  const name = `sandboxFaults${++middlewareCount}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? 'unknown';
      const count = (calls.get(command) ?? 0) + 1;
      calls.set(command, count);
      if (command === 'ScanCommand' && count === faults.failScanPage) throw new InjectedFault(`injected failure of Scan page ${count}`);
      if (command !== 'BatchGetItemCommand' || count > (faults.unprocessedBatchGets ?? 0)) return next(args);
      const requestItems = (args.input as { RequestItems: Record<string, KeysAndAttributes> }).RequestItems;
      const sent: Record<string, KeysAndAttributes> = {};
      const withheld: Record<string, KeysAndAttributes> = {};
      for (const [table, request] of Object.entries(requestItems)) {
        const keys = request.Keys ?? [];
        const half = Math.floor(keys.length / 2);
        if (half > 0) sent[table] = { ...request, Keys: keys.slice(0, half) };
        withheld[table] = { ...request, Keys: keys.slice(half) };
      }
      const result =
        Object.keys(sent).length > 0
          ? await next({ ...args, input: { ...args.input, RequestItems: sent } })
          : { output: { $metadata: {}, Responses: {} }, response: {} };
      return { ...result, output: { ...result.output, UnprocessedKeys: withheld } };
    },
    { step: 'initialize', name },
  );
  return { calls, remove: () => client.middlewareStack.remove(name) };
}

const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'ScanCommand', 'QueryCommand']);
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand']);

export interface CapacityMeter extends MiddlewareHandle {
  /** Requests and capacity units consumed since the last reset, by reads and writes. */
  totals(): { reads: number; writes: number; readUnits: number; writeUnits: number };
  reset(): void;
}

/** Asks DynamoDB for ConsumedCapacity on every data request and adds it up. */
export function meterCapacity(client: DynamoDBClient): CapacityMeter {
  const calls = new Map<string, number>();
  const totals = { reads: 0, writes: 0, readUnits: 0, writeUnits: 0 };
  const name = `sandboxCapacity${++middlewareCount}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? 'unknown';
      const isRead = READS.has(command);
      if (!isRead && !WRITES.has(command)) return next(args);
      calls.set(command, (calls.get(command) ?? 0) + 1);
      const result = await next({ ...args, input: { ...args.input, ReturnConsumedCapacity: 'TOTAL' } });
      const consumed = (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity;
      const units = [consumed ?? []].flat().reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
      if (isRead) Object.assign(totals, { reads: totals.reads + 1, readUnits: totals.readUnits + units });
      else Object.assign(totals, { writes: totals.writes + 1, writeUnits: totals.writeUnits + units });
      return result;
    },
    { step: 'initialize', name },
  );
  return {
    calls,
    totals: () => ({ ...totals }),
    reset: () => {
      calls.clear();
      Object.assign(totals, { reads: 0, writes: 0, readUnits: 0, writeUnits: 0 });
    },
    remove: () => client.middlewareStack.remove(name),
  };
}
