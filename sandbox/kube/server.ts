/**
 * The HTTPS request pipeline: read body → sandbox API or (auth → latency → injected fault →
 * discovery or resource handler) → JSON reply, with every API request logged and counted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAuthorized, isPublicPath } from './auth.js';
import { handleControl, type SandboxControl } from './control-api.js';
import { discovery } from './discovery.js';
import { openApi } from './openapi.js';
import type { Faults } from './faults.js';
import { parseRequest, type RequestInfo } from './paths.js';
import type { Registry } from './registry.js';
import type { RequestLog } from './request-log.js';
import type { RequestHooks } from './request-hooks.js';
import { handleResource, type Reply } from './resource-handler.js';
import { ApiError, errors } from './status.js';
import { asTable, wantsTable } from './table.js';
import { planWatch, type WatchPlan, type WatchRequest, type Watches } from './watch.js';

export interface PipelineDeps {
  registry: Registry;
  faults: Faults;
  log: RequestLog;
  token: string;
  control: SandboxControl;
  watches: Watches;
  hooks: RequestHooks;
  serverAddress: () => string;
}

interface Answer extends Reply {
  contentType?: string;
  injected?: boolean;
  stream?: { request: WatchRequest; plan: WatchPlan };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw errors.badRequest(`the body of the request could not be decoded as JSON: ${(error as Error).message}`);
  }
}

function failure(error: unknown): Answer {
  const apiError = error instanceof ApiError ? error : errors.internal(error instanceof Error ? error.message : String(error));
  return { status: apiError.code, body: apiError.status };
}

async function serveApi(deps: PipelineDeps, request: IncomingMessage, url: URL, info: RequestInfo, text: string): Promise<Answer> {
  const method = request.method ?? 'GET';
  if (!isPublicPath(url.pathname) && !isAuthorized(request.headers.authorization, deps.token)) return failure(errors.unauthorized());
  const delay = deps.faults.delayFor(method, url);
  if (delay > 0) await sleep(delay);
  const injected = deps.faults.failureFor(method, url, info.verb);
  if (injected) return { ...failure(injected), injected: true };
  try {
    const accept = request.headers.accept ?? '';
    if (!info.isResourceRequest) {
      const document = openApi(url.pathname, accept) ?? discovery(url.pathname, accept, deps.serverAddress());
      if (!document) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      return { status: 200, ...document };
    }
    const reply = handleResource(deps.registry, {
      info,
      query: url.searchParams,
      contentType: request.headers['content-type'] ?? '',
      body: parseJson(text),
    });
    if (reply.watch)
      return { status: 200, body: undefined, stream: { request: reply.watch, plan: planWatch(reply.watch, wantsTable(accept)) } };
    if (wantsTable(accept) && (info.verb === 'get' || info.verb === 'list')) return { ...asTable(reply.body), status: reply.status };
    return reply;
  } catch (error) {
    return failure(error);
  }
}

function send(response: ServerResponse, answer: Answer): void {
  const text = typeof answer.body === 'string' || Buffer.isBuffer(answer.body) ? answer.body : JSON.stringify(answer.body);
  const headers: Record<string, string> = { 'content-type': answer.contentType ?? 'application/json' };
  const retryAfter = (answer.body as { details?: { retryAfterSeconds?: number } } | undefined)?.details?.retryAfterSeconds;
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  response.writeHead(answer.status, headers).end(text);
}

export function createRequestHandler(deps: PipelineDeps): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    void (async () => {
      const method = request.method ?? 'GET';
      const url = new URL(request.url ?? '/', 'https://sandbox.invalid');
      const text = await readBody(request);
      if (url.pathname === '/_sandbox' || url.pathname.startsWith('/_sandbox/')) {
        if (!isAuthorized(request.headers.authorization, deps.token)) return send(response, failure(errors.unauthorized()));
        let body: unknown;
        try {
          body = parseJson(text);
        } catch (error) {
          return send(response, failure(error));
        }
        return send(response, handleControl(deps.control, method, url, body));
      }
      const info = parseRequest(method, url);
      if (info.isResourceRequest) deps.hooks.before(info);
      const answer = await serveApi(deps, request, url, info, text);
      if (info.isResourceRequest) deps.hooks.after(info, answer.status);
      deps.log.record(method, info, answer.status, answer.injected === true);
      if (answer.stream) deps.watches.serve(response, answer.stream.request, answer.stream.plan);
      else send(response, answer);
    })().catch((error: unknown) => {
      // A request that broke mid-way (client gone, body unreadable) must not take the server down.
      try {
        if (!response.headersSent) send(response, failure(error));
        else response.destroy();
      } catch {
        response.destroy();
      }
    });
  };
}
