/**
 * Watch requests as kube-apiserver serves them: newline-delimited `{type, object}` JSON on a
 * chunked 200 response. Events come from the store's history (writes after the asked
 * resourceVersion) and then from live writes; selectors turn an object entering the selection
 * into ADDED and one leaving it into DELETED, as the watch cache does.
 */
import type { ServerResponse } from 'node:http';
import { finished } from 'node:stream/promises';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import { apiVersionOf, type ResourceType } from './resources.js';
import { ApiError, errors } from './status.js';
import type { Change, KubeObject, VersionedStore } from './store.js';
import { asTable } from './table.js';

type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

interface WatchEvent {
  type: WatchEventType;
  object: unknown;
}

export interface WatchRequest {
  type: ResourceType;
  namespace?: string;
  name?: string;
  query: URLSearchParams;
}

/** Runs `fire` after `ms` unless the returned function is called first (injectable so tests move time). */
export type WatchScheduler = (ms: number, fire: () => void) => () => void;

const realScheduler: WatchScheduler = (ms, fire) => {
  const timer = setTimeout(fire, ms).unref();
  return () => clearTimeout(timer);
};

/** Without `timeoutSeconds` upstream picks 30–60 min (minRequestTimeout ×[1, 2)); the sandbox uses the lower end. */
const defaultTimeoutSeconds = 1800;

/** The cacher's bookmarkFrequency: a watcher that allows bookmarks gets one roughly every minute. */
export const BOOKMARK_PERIOD_MS = 60_000;
/** ...and one this long before its deadline (cacheWatcher.nextBookmarkTime), so a client resumes from close to now. */
export const BOOKMARK_BEFORE_DEADLINE_MS = 2_000;

type Matcher = (object: KubeObject) => boolean;

/** What a watch asked for, checked before any byte of the stream is sent (errors here are plain 4xx). */
export interface WatchPlan {
  matches: Matcher;
  /** The asked resourceVersion; undefined when unset or "0" (any). */
  fromRv?: number;
  initialEvents: boolean;
  initialEventsEndBookmark: boolean;
  /** `allowWatchBookmarks=true`: periodic BOOKMARKs, as the cacher sends them. */
  bookmarks: boolean;
  timeoutMs: number;
  asTable: boolean;
}

function parseRv(value: string): number {
  const rv = Number(value);
  if (!Number.isInteger(rv) || rv < 0) throw errors.badRequest(`invalid resource version: ${value}`);
  return rv;
}

function flag(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name);
  return value === null ? undefined : value === 'true' || value === '1';
}

export function planWatch(request: WatchRequest, wantsTable: boolean): WatchPlan {
  const { type, namespace, name, query } = request;
  const label = parseLabelSelector(query.get('labelSelector'));
  const field = parseFieldSelector(query.get('fieldSelector'), type);
  const rvText = query.get('resourceVersion') ?? '';
  const sendInitialEvents = flag(query, 'sendInitialEvents');
  const bookmarks = flag(query, 'allowWatchBookmarks') === true;
  if (sendInitialEvents !== undefined) {
    if (query.get('resourceVersionMatch') !== 'NotOlderThan')
      throw errors.invalidQuery('resourceVersionMatch', 'sendInitialEvents requires resourceVersionMatch NotOlderThan');
    if (!bookmarks) throw errors.invalidQuery('allowWatchBookmarks', 'sendInitialEvents requires allowWatchBookmarks');
  } else if (query.get('resourceVersionMatch')) {
    throw errors.invalidQuery('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  }
  const timeout = query.get('timeoutSeconds');
  const seconds = timeout === null || timeout === '' ? defaultTimeoutSeconds : Number(timeout);
  if (!Number.isFinite(seconds) || seconds < 0) throw errors.badRequest(`invalid timeoutSeconds: ${String(timeout)}`);
  const any = rvText === '' || rvText === '0';
  // Legacy semantics: unset or "0" start with the current state; sendInitialEvents says it outright.
  const initialEvents = sendInitialEvents ?? any;
  return {
    matches: (object) =>
      (namespace === undefined || object.metadata.namespace === namespace) &&
      (name === undefined || object.metadata.name === name) &&
      label(object) &&
      field(object),
    ...(any ? {} : { fromRv: parseRv(rvText) }),
    initialEvents,
    initialEventsEndBookmark: sendInitialEvents === true,
    bookmarks,
    timeoutMs: seconds * 1000,
    asTable: wantsTable,
  };
}

function withTypeMeta(type: ResourceType, object: KubeObject): KubeObject {
  return { ...object, apiVersion: apiVersionOf(type), kind: type.kind };
}

/** The event a write makes for one watcher, if any (the watch cache's convertToWatchEvent). */
function eventFor(change: Change, matches: Matcher): { type: WatchEventType; object: KubeObject } | undefined {
  const was = change.previous !== null && matches(change.previous);
  const is = change.object !== null && matches(change.object);
  if (is) return { type: was ? 'MODIFIED' : 'ADDED', object: change.object as KubeObject };
  if (!was) return undefined;
  // The last state the watcher saw, at the revision of the write that removed it.
  const previous = change.previous as KubeObject;
  return { type: 'DELETED', object: { ...previous, metadata: { ...previous.metadata, resourceVersion: String(change.rv) } } };
}

function bookmark(type: ResourceType, rv: number, initialEventsEnd: boolean): WatchEvent {
  const annotations = initialEventsEnd ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {};
  return {
    type: 'BOOKMARK',
    object: { kind: type.kind, apiVersion: apiVersionOf(type), metadata: { resourceVersion: String(rv), ...annotations } },
  };
}

/**
 * When the next periodic BOOKMARK goes out, in ms since the watch opened (cacheWatcher.nextBookmarkTime):
 * a minute after the last one, or 2 s before the deadline if that comes first; none once that one is sent.
 */
export function nextBookmarkAt(from: number, timeoutMs: number): number | undefined {
  const beforeDeadline = timeoutMs - BOOKMARK_BEFORE_DEADLINE_MS;
  const at = Math.min(from + BOOKMARK_PERIOD_MS, beforeDeadline);
  return at > from ? at : undefined;
}

/** Events to send before following live writes: initial state or history, or one ERROR. */
function openingEvents(store: VersionedStore, request: WatchRequest, plan: WatchPlan): { events: WatchEvent[]; failed: boolean } {
  const { type } = request;
  const current = store.currentRv();
  const out: WatchEvent[] = [];
  try {
    if (plan.fromRv !== undefined && plan.fromRv > current) throw errors.tooLargeResourceVersion(plan.fromRv, current);
    if (plan.initialEvents) {
      for (const object of store.list({ resource: type.resource, atRv: current, filter: plan.matches }).items)
        out.push({ type: 'ADDED', object: withTypeMeta(type, object) });
      if (plan.initialEventsEndBookmark) out.push(bookmark(type, current, true));
    } else {
      for (const change of store.changesSince(type.resource, plan.fromRv ?? current)) {
        const event = eventFor(change, plan.matches);
        if (event) out.push({ type: event.type, object: withTypeMeta(type, event.object) });
      }
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { events: [{ type: 'ERROR', object: error.status }], failed: true };
  }
  return { events: out, failed: false };
}

function encode(event: WatchEvent, table: boolean): string {
  const object = table && event.type !== 'ERROR' && event.type !== 'BOOKMARK' ? asTable(event.object).body : event.object;
  return `${JSON.stringify({ type: event.type, object })}\n`;
}

/** Open watch streams, so that stopping the server can end each one cleanly. */
export class Watches {
  private readonly open = new Map<() => void, Promise<void>>();

  constructor(
    private readonly store: VersionedStore,
    private readonly schedule: WatchScheduler = realScheduler,
  ) {}

  get size(): number {
    return this.open.size;
  }

  serve(response: ServerResponse, request: WatchRequest, plan: WatchPlan): void {
    const { events, failed } = openingEvents(this.store, request, plan);
    response.writeHead(200, { 'content-type': plan.asTable ? 'application/json;as=Table;v=v1;g=meta.k8s.io' : 'application/json' });
    // Headers go out at once, as the apiserver flushes them, so a client sees the watch open before any event.
    response.flushHeaders();
    for (const event of events) response.write(encode(event, plan.asTable));
    if (failed) return void response.end();
    const stopFollowing = this.store.onChange((change) => {
      if (change.resource !== request.type.resource) return;
      const event = eventFor(change, plan.matches);
      if (event) response.write(encode({ type: event.type, object: withTypeMeta(request.type, event.object) }, plan.asTable));
    });
    const end = () => {
      if (!this.open.delete(end)) return;
      stopFollowing();
      cancelTimer();
      cancelBookmark();
      if (!response.writableEnded) response.end();
    };
    const cancelTimer = this.schedule(plan.timeoutMs, end);
    let cancelBookmark = () => {};
    if (plan.bookmarks) {
      // Every write the watcher selects was sent as it happened, so the current revision is how far it has come.
      const send = (at: number) => {
        response.write(encode(bookmark(request.type, this.store.currentRv(), false), plan.asTable));
        next(at);
      };
      const next = (from: number) => {
        const at = nextBookmarkAt(from, plan.timeoutMs);
        cancelBookmark = at === undefined ? () => {} : this.schedule(at - from, () => send(at));
      };
      next(0);
    }
    this.open.set(
      end,
      finished(response).catch(() => undefined),
    );
    response.on('close', end);
  }

  /**
   * Ends every stream with its terminating chunk, as a server shutting down closes its watches;
   * resolves once sent, or after `graceMs` when a client stopped reading (its socket is then cut).
   */
  async endAll(graceMs = 1000): Promise<void> {
    const sent = Promise.all(this.open.values());
    for (const end of [...this.open.keys()]) end();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([sent, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs).unref()))]);
    clearTimeout(timer);
  }
}
