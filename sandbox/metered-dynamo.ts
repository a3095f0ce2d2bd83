/**
 * dynalite on loopback with a meter on the server side: every request is counted by operation
 * (X-Amz-Target), with the items its answer carried and whether it failed a condition. The
 * controller builds its own DynamoDB client, so counting at the server is what sees its calls.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import type { Turnstile } from './turnstile.js';

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
  /** The next `count` requests of `operation` (e.g. Scan, PutItem; `*` for any) fail with a 500 InternalServerError. */
  failNext(operation: string, count: number): void;
  /** Adds `ms` before every request is answered (a remote table's round trip); 0 removes it. */
  setLatency(ms: number): void;
  clearFaults(): void;
  stop(): Promise<void>;
}

const emptyMeter = (): DynamoMeter => ({ calls: {}, itemsRead: 0, itemsWritten: 0, conditionalFailures: 0, capacityUnits: 0 });

/** `turnstile`: serve requests in turns (sandbox/turnstile.ts), as a seeded run needs. */
export async function startMeteredDynamo(options: { turnstile?: Turnstile } = {}): Promise<MeteredDynamo> {
  const server: Server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  let meter = emptyMeter();
  const failures = new Map<string, number>();
  let latencyMs = 0;
  let injected = 0;
  // dynalite's own handler runs after the meter, unless an injected failure answers first.
  const handlers = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const operation = String(request.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
    meter.calls[operation] = (meter.calls[operation] ?? 0) + 1;
    if (takeFailure(failures, operation)) return injectFailure(request, response, operation, ++injected);
    const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
    response.end = ((...args: unknown[]) => {
      const [chunk] = args;
      if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) record(meter, operation, response.statusCode, chunk.toString());
      return end(...args);
    }) as ServerResponse['end'];
    const answer = () => {
      for (const handler of handlers) handler(request, response);
    };
    if (latencyMs > 0) setTimeout(answer, latencyMs);
    else answer();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  options.turnstile?.gate(server);
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get meter() {
      return meter;
    },
    resetMeter: () => void (meter = emptyMeter()),
    failNext: (operation, count) => void failures.set(operation, (failures.get(operation) ?? 0) + count),
    setLatency: (ms) => {
      if (!(ms >= 0)) throw new RangeError(`latency must be >= 0, got ${ms}`);
      latencyMs = ms;
    },
    clearFaults: () => {
      failures.clear();
      latencyMs = 0;
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function takeFailure(failures: Map<string, number>, operation: string): boolean {
  for (const key of [operation, '*']) {
    const left = failures.get(key) ?? 0;
    if (left > 0) {
      failures.set(key, left - 1);
      return true;
    }
  }
  return false;
}

function injectFailure(request: IncomingMessage, response: ServerResponse, operation: string, id: number): void {
  request.resume();
  request.on('end', () => {
    response.writeHead(500, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `injected-${id}` });
    response.end(
      JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: `injected failure of ${operation}` }),
    );
  });
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
