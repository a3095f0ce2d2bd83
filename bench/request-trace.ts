/**
 * The controller's outgoing requests as its own process sees them, from Node's diagnostics
 * channels: `http.client.*` for the AWS SDK (node:http) and `undici:*` for the Kubernetes client
 * (undici). Each request is an interval (sent → answer's headers), attributed to a service by the
 * port it went to. The sequential round trips of a path are the longest chain of intervals that
 * do not overlap: requests in flight together count once, whatever their number.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';

export interface TracedRequest {
  service: string;
  /** e.g. `GET /api/v1/nodes/n1` or `POST /` (the AWS services name their action in the body). */
  label: string;
  startMs: number;
  endMs: number;
}

interface HttpRequestMessage {
  request: { method?: string; path?: string; getHeader?(name: string): number | string | string[] | undefined };
}
interface UndiciRequestMessage {
  request: { origin?: string | URL; method?: string; path?: string };
}

/** Services by the port their local server listens on, e.g. `{ '4566': 'DynamoDB' }`. */
export type ServiceByPort = Record<string, string>;

const portOf = (endpoint: string) => new URL(endpoint).port;

export function servicesByEndpoint(endpoints: Record<string, string>): ServiceByPort {
  return Object.fromEntries(Object.entries(endpoints).map(([service, endpoint]) => [portOf(endpoint), service]));
}

export function traceRequests(services: ServiceByPort): { stop(): TracedRequest[] } {
  const done: TracedRequest[] = [];
  const open = new Map<object, TracedRequest>();
  const begin = (key: object, port: string, method: string | undefined, path: string | undefined, target?: string) => {
    const service = services[port];
    if (service === undefined) return;
    const action = target === undefined ? '' : ` ${target.split('.').pop() ?? ''}`;
    open.set(key, {
      service,
      label: `${method ?? '?'} ${(path ?? '').split('?')[0] ?? ''}${action}`,
      startMs: performance.now(),
      endMs: NaN,
    });
  };
  const end = (key: object) => {
    const request = open.get(key);
    if (request === undefined) return;
    open.delete(key);
    done.push({ ...request, endMs: performance.now() });
  };
  const listeners: [string, (message: unknown) => void][] = [
    [
      'http.client.request.start',
      (m) => {
        const { request } = m as HttpRequestMessage;
        const header = (name: string) => [request.getHeader?.(name) ?? ''].flat().join(',');
        begin(request, header('host').split(':').pop() ?? '', request.method, request.path, header('x-amz-target') || undefined);
      },
    ],
    ['http.client.response.finish', (m) => end((m as HttpRequestMessage).request)],
    [
      'undici:request:create',
      (m) => {
        const { request } = m as UndiciRequestMessage;
        begin(request, portOf(String(request.origin ?? 'http://x')), request.method, request.path);
      },
    ],
    ['undici:request:headers', (m) => end((m as UndiciRequestMessage).request)],
    ['undici:request:error', (m) => end((m as UndiciRequestMessage).request)],
  ];
  for (const [name, listener] of listeners) subscribe(name, listener);
  return {
    stop: () => {
      for (const [name, listener] of listeners) unsubscribe(name, listener);
      return done.sort((a, b) => a.startMs - b.startMs);
    },
  };
}

/** The most requests that ran one after another (no two overlapping): earliest-finishing first. */
export function sequentialRoundTrips(requests: readonly TracedRequest[]): number {
  let chain = 0;
  let free = -Infinity;
  for (const request of [...requests].sort((a, b) => a.endMs - b.endMs)) {
    if (request.startMs < free) continue;
    chain += 1;
    free = request.endMs;
  }
  return chain;
}

/** A request as the local server that answered it saw it: arrival → response finished, in epoch ms. */
export interface ServedRequest {
  service: string;
  label: string;
  startMs: number;
  endMs: number;
}

interface HttpServerMessage {
  request: { headers: Record<string, string | string[] | undefined>; on(event: 'data', listener: (chunk: Buffer) => void): void };
  response: object;
  server: { address(): unknown };
}

/**
 * The local servers' side (they run in the bench's process): each request from its arrival to its
 * response's end, by the port the server listens on; `label` names the DynamoDB operation when the
 * request carries one. Times are epoch milliseconds, comparable with another process's.
 */
export function traceServed(services: ServiceByPort): { stop(): ServedRequest[] } {
  const done: ServedRequest[] = [];
  const open = new Map<object, ServedRequest>();
  const now = () => performance.timeOrigin + performance.now();
  const start = (m: unknown) => {
    const { request, response, server } = m as HttpServerMessage;
    const address = server.address();
    const port = typeof address === 'object' && address !== null && 'port' in address ? String(address.port) : '';
    const service = services[port];
    if (service === undefined) return;
    const target = [request.headers['x-amz-target'] ?? ''].flat().join('');
    const served = { service, label: target.split('.').pop() ?? '', startMs: now(), endMs: NaN };
    open.set(response, served);
    // EC2's Query API names its action in the form body, which the server reads too.
    if (target === '') request.on('data', (chunk) => (served.label ||= /(?:^|&)Action=(\w+)/.exec(chunk.toString())?.[1] ?? ''));
  };
  const finish = (m: unknown) => {
    const { response } = m as HttpServerMessage;
    const served = open.get(response);
    if (served === undefined) return;
    open.delete(response);
    done.push({ ...served, endMs: now() });
  };
  subscribe('http.server.request.start', start);
  subscribe('http.server.response.finish', finish);
  return {
    stop: () => {
      unsubscribe('http.server.request.start', start);
      unsubscribe('http.server.response.finish', finish);
      return done.sort((a, b) => a.startMs - b.startMs);
    },
  };
}
