/**
 * List and watch on @kubernetes/client-node (the `ClusterWatch` port): a paged list that keeps the
 * resourceVersion of its snapshot, and client-node's `Watch` with bookmarks asked for. Objects are
 * mapped as the lists map them (json-mapping.ts). The API server reports a too old
 * resourceVersion as an ERROR event holding a 410 Status (from its watch cache) or as an HTTP 410
 * (from etcd); both become `expired`, which tells the watcher to list again, as client-go's
 * reflector does.
 */
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import type {
  ClusterWatch,
  WatchChangeType,
  WatchedKind,
  WatchedObject,
  WatchOptions,
  WatchSignal,
  WatchStart,
  WatchStream,
} from '../../ports/cluster-watch.js';
import { csiNodeFromJson, nodeFromJson, podFromJson, pvFromJson, volumeAttachmentFromJson } from './json-mapping.js';
import { listAllPages, type PagingOptions } from './paged-list.js';
import { jsonPages, PATHS, type ReadClients } from './reads.js';

const MAPPERS: Record<WatchedKind, (value: unknown) => WatchedObject> = {
  pods: podFromJson,
  nodes: nodeFromJson,
  volumeattachments: volumeAttachmentFromJson,
  persistentvolumes: pvFromJson,
  csinodes: csiNodeFromJson,
};

const CHANGES = { ADDED: 'added', MODIFIED: 'modified', DELETED: 'deleted' } as const;

export async function listToWatch({ getJson }: ReadClients, kind: WatchedKind, paging: PagingOptions): Promise<WatchStart> {
  let resourceVersion = '';
  const pages = jsonPages(getJson, PATHS[kind], MAPPERS[kind]);
  const objects = await listAllPages(
    kind,
    async (request) => {
      const page = await pages(request);
      // Every page of one list is read at the first page's revision (a restart starts a new list).
      if (request._continue === undefined) resourceVersion = page.metadata?.resourceVersion ?? '';
      return page;
    },
    paging,
  );
  return { objects, resourceVersion };
}

/** The `code` of an ERROR event's Status, or of client-node's error for a non-200 answer. */
function codeOf(value: unknown): number | undefined {
  const code = (value as { code?: unknown; statusCode?: unknown } | null)?.code ?? (value as { statusCode?: unknown } | null)?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  const { code, reason, message } = (value ?? {}) as { code?: unknown; reason?: unknown; message?: unknown };
  const parts = [code, reason, message].filter((part): part is string | number => typeof part === 'string' || typeof part === 'number');
  return parts.join(' ') || 'an ERROR event';
}

/** One stream's signals: a terminal one (`expired`, `closed`) ends it, and nothing is heard after `stop`. */
function signaller(listener: (signal: WatchSignal) => void) {
  let ended = false;
  return {
    stop: () => void (ended = true),
    send(signal: WatchSignal) {
      if (ended) return;
      if (signal.type === 'expired' || signal.type === 'closed') ended = true;
      listener(signal);
    },
  };
}

function signalOf(kind: WatchedKind, type: string, object: unknown): WatchSignal {
  if (type === 'BOOKMARK') return { type: 'bookmark', resourceVersion: String((object as WatchedObject).metadata.resourceVersion ?? '') };
  if (type === 'ERROR') return codeOf(object) === 410 ? { type: 'expired' } : { type: 'closed', error: describe(object) };
  const change: WatchChangeType | undefined = CHANGES[type as keyof typeof CHANGES];
  if (change === undefined) return { type: 'closed', error: `unknown watch event type ${JSON.stringify(type)}` };
  const mapped = MAPPERS[kind](object);
  return { type: change, object: mapped, resourceVersion: mapped.metadata.resourceVersion ?? '' };
}

export async function openWatch(
  kc: KubeConfig,
  kind: WatchedKind,
  resourceVersion: string,
  listener: (signal: WatchSignal) => void,
  options: WatchOptions,
): Promise<WatchStream> {
  const signals = signaller(listener);
  // Set once the stream is open: a terminal signal aborts it (the callback may run before `watch` resolves).
  const opened: { controller?: AbortController } = {};
  // client-node cuts a stream that sent nothing for 30 s; the API server's bookmarks keep a live one talking.
  const watch = new Watch(kc);
  const onEvent = (type: string, object: unknown) => {
    let signal: WatchSignal;
    try {
      signal = signalOf(kind, type, object);
    } catch (error) {
      signal = { type: 'closed', error: `a malformed ${type} event: ${describe(error)}` };
    }
    signals.send(signal);
    if (signal.type === 'expired' || signal.type === 'closed') opened.controller?.abort();
  };
  const onDone = (error: unknown) =>
    signals.send(codeOf(error) === 410 ? { type: 'expired' } : { type: 'closed', ...(error ? { error: describe(error) } : {}) });
  const query = { allowWatchBookmarks: true, resourceVersion, timeoutSeconds: options.timeoutSeconds };
  const controller = await watch.watch(PATHS[kind], query, onEvent, onDone).catch((error: unknown) => {
    onDone(error);
    return undefined;
  });
  if (controller !== undefined) opened.controller = controller;
  return {
    stop: () => {
      signals.stop();
      controller?.abort();
    },
  };
}

/** The port's two methods over one client configuration. */
export function clusterWatch(kc: KubeConfig, clients: ReadClients, paging: PagingOptions): ClusterWatch {
  return {
    listToWatch: (kind) => listToWatch(clients, kind, paging),
    watch: (kind, resourceVersion, listener, options) => openWatch(kc, kind, resourceVersion, listener, options),
  };
}
