/**
 * The watcher's informer caches, as client-go's reflector keeps an indexer: for each cached kind,
 * every object by name as the kind's list and watch left it. A list (the first, or one after a 410)
 * replaces what the kind held, so an object deleted while the watch was gone does not linger; each
 * change after it is applied in the stream's order. A kind answers only once its first list is in:
 * before that, a pass reads the API server as it would without a watcher. The cache is exactly as
 * fresh as the stream (never fresher than the sidecar's informers), which is why the modes use it
 * only where a stale object cannot cause a detach (attacher/watch.ts).
 */
import type { WatchedKind } from '../../core/watch.js';
import type { WatchChangeType, WatchedObject } from '../../ports/cluster-watch.js';

export class WatchCache {
  private readonly byKind = new Map<WatchedKind, Map<string, WatchedObject>>();

  constructor(readonly kinds: readonly WatchedKind[]) {}

  /** A list of `kind` begins: its objects follow as `added`, replacing everything the kind held. */
  relist(kind: WatchedKind): void {
    if (this.kinds.includes(kind)) this.byKind.set(kind, new Map());
  }

  /** One change, in the stream's order; `deleted` drops the object whatever state it carries. */
  apply(kind: WatchedKind, change: WatchChangeType, object: WatchedObject): void {
    const objects = this.byKind.get(kind);
    const name = object.metadata.name;
    if (objects === undefined || name === undefined) return;
    if (change === 'deleted') objects.delete(name);
    else objects.set(name, object);
  }

  /** Whether `kind` has been listed, so that a name it lacks is really absent. */
  synced(kind: WatchedKind): boolean {
    return this.byKind.has(kind);
  }

  /** The object of `kind` named `name`; undefined when absent or when the kind is not listed yet. */
  get<T extends WatchedObject>(kind: WatchedKind, name: string): T | undefined {
    return this.byKind.get(kind)?.get(name) as T | undefined;
  }

  /** Objects held, every kind together (the watcher's report: its memory grows with them). */
  size(): number {
    let total = 0;
    for (const objects of this.byKind.values()) total += objects.size;
    return total;
  }
}
