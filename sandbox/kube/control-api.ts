/**
 * The sandbox's own HTTP API under `/_sandbox/…`, so that another process (a demo, a CLI, an
 * e2e script) can seed objects, play the kubelet, inject faults and read the request log.
 * Bodies and answers are JSON; path patterns travel as `path` (exact) or `pathRegex`.
 */
import type { RequestMatch } from './faults.js';
import { asMap, type JsonMap } from './json.js';
import type { KubeSandbox } from './types.js';

export type SandboxControl = Omit<KubeSandbox, 'stop' | 'url' | 'token' | 'kubeconfigPath' | 'caPem'>;

export interface ControlReply {
  status: number;
  body: unknown;
}

type Body = JsonMap;

function pattern(body: Body): string | RegExp {
  if (typeof body.pathRegex === 'string') return new RegExp(body.pathRegex);
  if (typeof body.path === 'string') return body.path;
  throw new Error('give path (exact) or pathRegex');
}

function match(body: Body): RequestMatch {
  return { path: pattern(body), ...(typeof body.method === 'string' ? { method: body.method } : {}) };
}

function seedList(body: unknown): object[] {
  const list: unknown = Array.isArray(body) ? body : (body as Body).objects;
  if (!Array.isArray(list)) throw new Error('seed takes a JSON list of objects (or {objects: [...]})');
  return list as object[];
}

function post(sandbox: SandboxControl, route: string, raw: unknown): unknown {
  const body = asMap(raw);
  switch (route) {
    case 'seed':
      sandbox.seed(seedList(raw));
      return {};
    case 'bind':
      sandbox.bind(String(body.namespace), String(body.claim), String(body.volume));
      return {};
    case 'compact':
      sandbox.compact();
      return { resourceVersion: sandbox.resourceVersion() };
    case 'kubelet/volumes-in-use':
      sandbox.kubelet.setVolumesInUse(String(body.node), body.uniqueNames as string[]);
      return {};
    case 'kubelet/ready':
      sandbox.kubelet.setReady(String(body.node), body.ready === true);
      return {};
    case 'kubelet/out-of-service':
      sandbox.kubelet.setOutOfService(String(body.node), body.on === true);
      return {};
    case 'kubelet/delete-pod':
      sandbox.kubelet.deletePod(String(body.namespace), String(body.name), { graceful: body.graceful === true });
      return {};
    case 'kubelet/pod-phase':
      sandbox.kubelet.setPodPhase(String(body.namespace), String(body.name), String(body.phase));
      return {};
    case 'faults/fail-next':
      sandbox.faults.failNext(match(body), Number(body.count ?? 1), Number(body.code), body.reason as string | undefined);
      return {};
    case 'faults/latency':
      sandbox.faults.latency(Number(body.ms), body.path || body.pathRegex ? match(body) : undefined);
      return {};
    case 'faults/break-pagination':
      sandbox.faults.breakPagination(
        { path: pattern(body) },
        {
          page: Number(body.page),
          mode: body.mode === 'expired' ? 'expired' : 'error',
          ...(body.times ? { times: Number(body.times) } : {}),
        },
      );
      return {};
    case 'faults/clear':
      sandbox.faults.clear();
      return {};
    case 'requests/reset':
      sandbox.resetRequests();
      return {};
    default:
      return undefined;
  }
}

function get(sandbox: SandboxControl, route: string, query: URLSearchParams): unknown {
  if (route === 'requests') return sandbox.requests();
  if (route === 'counters') return sandbox.counters();
  const object = /^objects\/([^/]+)(?:\/([^/]+))?$/.exec(route);
  if (!object) return undefined;
  const [, kind = '', name] = object;
  const namespace = query.get('namespace') ?? undefined;
  if (name === undefined) return sandbox.list(kind, namespace);
  return sandbox.get(kind, namespace, decodeURIComponent(name)) ?? null;
}

/** Serves `/_sandbox/<route>`; 404 for unknown routes, 400 with the message when an action throws. */
export function handleControl(sandbox: SandboxControl, method: string, url: URL, body: unknown): ControlReply {
  const route = url.pathname.replace(/^\/_sandbox\/?/, '').replace(/\/+$/, '');
  try {
    const result = method === 'GET' ? get(sandbox, route, url.searchParams) : method === 'POST' ? post(sandbox, route, body) : undefined;
    if (result === undefined) return { status: 404, body: { error: `no sandbox route ${method} /_sandbox/${route}` } };
    if (result === null) return { status: 404, body: { error: 'not found' } };
    return { status: 200, body: result };
  } catch (error) {
    return { status: 400, body: { error: error instanceof Error ? error.message : String(error) } };
  }
}
