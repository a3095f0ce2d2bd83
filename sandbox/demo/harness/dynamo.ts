/**
 * dynalite on loopback with a meter on the server side: every request is counted by operation
 * (X-Amz-Target), with the items its answer carried and whether it failed a condition. The
 * controller builds its own DynamoDB client, so counting at the server is what sees its calls.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';

export interface DynamoMeter {
  calls: Record<string, number>;
  /** Items returned by reads (GetItem, BatchGetItem, Scan, Query). */
  itemsRead: number;
  /** Items written by successful writes (PutItem, UpdateItem, DeleteItem; BatchWriteItem counts its requests). */
  itemsWritten: number;
  conditionalFailures: number;
  /** Capacity units, when the caller asked for ReturnConsumedCapacity (else 0). */
  capacityUnits: number;
}

export interface MeteredDynamo {
  endpoint: string;
  meter: DynamoMeter;
  resetMeter(): void;
  stop(): Promise<void>;
}

const emptyMeter = (): DynamoMeter => ({ calls: {}, itemsRead: 0, itemsWritten: 0, conditionalFailures: 0, capacityUnits: 0 });

export async function startMeteredDynamo(): Promise<MeteredDynamo> {
  const server: Server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  let meter = emptyMeter();
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const operation = String(request.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
    meter.calls[operation] = (meter.calls[operation] ?? 0) + 1;
    const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
    response.end = ((...args: unknown[]) => {
      const [chunk] = args;
      if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) record(meter, operation, response.statusCode, chunk.toString());
      return end(...args);
    }) as ServerResponse['end'];
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get meter() {
      return meter;
    },
    resetMeter: () => void (meter = emptyMeter()),
    stop: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    }),
  };
}

interface Answer {
  __type?: string;
  Item?: unknown;
  Items?: unknown[];
  Responses?: Record<string, unknown[]>;
  ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[];
}

function record(meter: DynamoMeter, operation: string, status: number, body: string): void {
  let answer: Answer;
  try {
    answer = JSON.parse(body) as Answer;
  } catch {
    return;
  }
  if (status >= 400) {
    if (answer.__type?.endsWith('ConditionalCheckFailedException')) meter.conditionalFailures += 1;
    return;
  }
  meter.capacityUnits += [answer.ConsumedCapacity ?? []].flat().reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
  if (answer.Item !== undefined) meter.itemsRead += 1;
  if (answer.Items !== undefined) meter.itemsRead += answer.Items.length;
  if (answer.Responses !== undefined) meter.itemsRead += Object.values(answer.Responses).reduce((n, items) => n + items.length, 0);
  if (['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'].includes(operation)) meter.itemsWritten += 1;
}
