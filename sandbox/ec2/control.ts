/**
 * The control API over HTTP (`/_control/…`, JSON), so another process (the demo, a benchmark)
 * can inject faults, read counters and move a manual clock. Same operations as the in-process methods.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { CounterSnapshot, RecordedRequest } from './counters.js';
import type { FailureSpec } from './faults.js';
import type { ThrottleConfig } from './throttle.js';

export interface Ec2Controls {
  counters(): CounterSnapshot;
  resetCounters(): void;
  requests(action?: string): RecordedRequest[];
  failNext(spec: FailureSpec): void;
  setLatency(action: string, ms: number): void;
  /** The next `count` calls of `action` (`*`: any) are carried out, but the connection drops before the answer. */
  loseAnswers(action: string, count: number): void;
  /** DescribeVolumes shows a volume as it was before its last attach/detach for `ms` after it. */
  lagReads(ms: number, volumeId?: string): void;
  stickAttach(volumeId?: string): void;
  stickDetach(volumeId?: string): void;
  clearFaults(): void;
  setAttachmentLimit(instanceId: string, limit: number): void;
  configureThrottle(config: Partial<ThrottleConfig> | false): void;
  advanceClock(ms: number): number;
}

const bucket = z.object({ capacity: z.number().int().positive(), refillPerSecond: z.number().positive() });
const volumeTarget = z.object({ volumeId: z.string().min(1).optional() });

type Route = (controls: Ec2Controls, body: unknown, url: URL) => unknown;

const ROUTES: Record<string, Route> = {
  'GET /_control/health': () => ({ ok: true }),
  'GET /_control/counters': (c) => c.counters(),
  'POST /_control/counters/reset': (c) => (c.resetCounters(), { ok: true }),
  'GET /_control/requests': (c, _body, url) => c.requests(url.searchParams.get('action') ?? undefined),
  'POST /_control/fail': (c, body) => {
    const spec = z
      .object({
        action: z.string().min(1),
        count: z.number().int().positive(),
        code: z.string().min(1),
        message: z.string().optional(),
        status: z.number().int().min(400).max(599).optional(),
      })
      .parse(body);
    c.failNext(spec);
    return { ok: true };
  },
  'POST /_control/latency': (c, body) => {
    const { action, ms } = z.object({ action: z.string().min(1), ms: z.number().min(0) }).parse(body);
    c.setLatency(action, ms);
    return { ok: true };
  },
  'POST /_control/lose-answers': (c, body) => {
    const { action, count } = z.object({ action: z.string().min(1), count: z.number().int().positive() }).parse(body);
    c.loseAnswers(action, count);
    return { ok: true };
  },
  'POST /_control/read-lag': (c, body) => {
    const { ms, volumeId } = z.object({ ms: z.number().min(0), volumeId: z.string().min(1).optional() }).parse(body);
    c.lagReads(ms, volumeId);
    return { ok: true };
  },
  'POST /_control/stick-attach': (c, body) => (c.stickAttach(volumeTarget.parse(body).volumeId), { ok: true }),
  'POST /_control/stick-detach': (c, body) => (c.stickDetach(volumeTarget.parse(body).volumeId), { ok: true }),
  'POST /_control/clear-faults': (c) => (c.clearFaults(), { ok: true }),
  'POST /_control/attachment-limit': (c, body) => {
    const { instanceId, limit } = z.object({ instanceId: z.string().min(1), limit: z.number().int().min(0) }).parse(body);
    c.setAttachmentLimit(instanceId, limit);
    return { ok: true };
  },
  'POST /_control/throttle': (c, body) => {
    const parsed = z
      .union([z.object({ enabled: z.literal(false) }), z.object({ mutating: bucket.optional(), nonMutating: bucket.optional() })])
      .parse(body);
    c.configureThrottle('enabled' in parsed ? false : parsed);
    return { ok: true };
  },
  'POST /_control/clock/advance': (c, body) => ({ now: c.advanceClock(z.object({ ms: z.number().min(0) }).parse(body).ms) }),
};

export function handleControl(controls: Ec2Controls, request: IncomingMessage, rawBody: string, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://local');
  const route = ROUTES[`${request.method ?? 'GET'} ${url.pathname}`];
  if (!route) return sendJson(response, 404, { error: `no control route ${request.method} ${url.pathname}` });
  try {
    const body: unknown = rawBody.trim() === '' ? {} : JSON.parse(rawBody);
    sendJson(response, 200, route(controls, body, url));
  } catch (error) {
    const message = error instanceof z.ZodError ? z.prettifyError(error) : error instanceof Error ? error.message : String(error);
    sendJson(response, 400, { error: message });
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
