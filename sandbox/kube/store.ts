/**
 * A versioned key-value store in the manner of etcd: one global revision counter, every
 * write stamps the object with the new revision as `metadata.resourceVersion`, and old
 * revisions stay readable until compaction so that a paginated list keeps serving the
 * snapshot it started from (upstream lists with `continue` read etcd at a fixed revision).
 */
import { ApiError } from './status.js';

interface ObjectMetadata {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  [field: string]: unknown;
}

/** An API object as JSON: only metadata is typed, the rest is read per kind. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMetadata;
  [field: string]: unknown;
}

interface Version {
  rv: number;
  object: KubeObject | null; // null: deleted at this revision
}

export interface ListPage {
  items: KubeObject[];
  /** Key to resume from (exclusive), when more items match after this page. */
  lastKey?: string;
  /** Items left after this page, counted without filters (only when asked: it costs a scan). */
  remaining?: number;
}

export interface ListQuery {
  resource: string;
  namespace?: string;
  atRv: number;
  afterKey?: string;
  limit?: number;
  filter: (object: KubeObject) => boolean;
  countRemaining?: boolean;
}

/** One write as a watch sees it: the object before and after (null: absent / deleted). */
export interface Change {
  resource: string;
  key: string;
  rv: number;
  previous: KubeObject | null;
  object: KubeObject | null;
}

export type ChangeListener = (change: Change) => void;

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace === undefined ? name : `${namespace}/${name}`;
}

export class VersionedStore {
  private revision = 0;
  private compacted = 0;
  private readonly byResource = new Map<string, Map<string, Version[]>>();
  private readonly sortedKeys = new Map<string, string[]>();
  private readonly listeners = new Set<ChangeListener>();

  currentRv(): number {
    return this.revision;
  }

  compactedRv(): number {
    return this.compacted;
  }

  /** The live object, or undefined when absent or deleted. Frozen: build a new object to change it. */
  get(resource: string, key: string): KubeObject | undefined {
    return this.byResource.get(resource)?.get(key)?.at(-1)?.object ?? undefined;
  }

  /**
   * Stores `object` (or a deletion when null) at a new revision. The stored version is a deep,
   * frozen JSON copy, so that reads can share it without copying and no caller can change history.
   */
  put(resource: string, key: string, object: KubeObject | null): KubeObject | null {
    const rv = ++this.revision;
    const stored = object ? frozenCopy({ ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } }) : null;
    let keys = this.byResource.get(resource);
    if (!keys) this.byResource.set(resource, (keys = new Map<string, Version[]>()));
    const versions = keys.get(key);
    const previous = versions?.at(-1)?.object ?? null;
    if (versions) versions.push({ rv, object: stored });
    else {
      keys.set(key, [{ rv, object: stored }]);
      this.sortedKeys.delete(resource);
    }
    for (const listener of this.listeners) listener({ resource, key, rv, previous, object: stored });
    return stored;
  }

  /** Calls `listener` after every write; returns the function that stops it. */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The writes to `resource` after revision `fromRv`, in revision order, as etcd's watch from a
   * revision replays them; a compacted revision is 410 Expired, as etcd answers ErrCompacted.
   */
  changesSince(resource: string, fromRv: number): Change[] {
    if (fromRv < this.compacted) throw new ApiError(410, 'Expired', `too old resource version: ${fromRv} (${this.compacted})`);
    const changes: Change[] = [];
    for (const [key, versions] of this.byResource.get(resource) ?? []) {
      versions.forEach((version, index) => {
        if (version.rv <= fromRv) return;
        const previous = index > 0 ? (versions[index - 1] as Version).object : null;
        changes.push({ resource, key, rv: version.rv, previous, object: version.object });
      });
    }
    return changes.sort((a, b) => a.rv - b.rv);
  }

  /** One page of the snapshot at `atRv`, keys in etcd order (namespace, then name). */
  list(query: ListQuery): ListPage {
    if (query.atRv < this.compacted) throw new ApiError(410, 'Expired', `too old resource version: ${query.atRv} (${this.compacted})`);
    const keys = this.keysOf(query.resource);
    const prefix = query.namespace === undefined ? '' : `${query.namespace}/`;
    const versions = this.byResource.get(query.resource);
    const items: KubeObject[] = [];
    let lastKey: string | undefined;
    let index = query.afterKey === undefined ? 0 : firstAfter(keys, query.afterKey);
    for (; index < keys.length; index++) {
      const key = keys[index] as string;
      if (!key.startsWith(prefix)) continue;
      const object = visibleAt(versions?.get(key), query.atRv);
      if (!object || !query.filter(object)) continue;
      if (query.limit !== undefined && items.length === query.limit) break;
      items.push(object);
      lastKey = key;
    }
    const more = this.countVisible(keys.slice(index), prefix, versions, query);
    return {
      items,
      ...(query.countRemaining ? { remaining: more.remaining } : {}),
      ...(more.anyMatch && lastKey !== undefined ? { lastKey } : {}),
    };
  }

  /**
   * Forgets revisions older than `toRv` (default: the current one), as the apiserver's periodic
   * etcd compaction does; lists and continue tokens at an older revision then answer 410.
   */
  compact(toRv = this.revision): void {
    this.compacted = Math.max(this.compacted, Math.min(toRv, this.revision));
    for (const [resource, keys] of this.byResource) {
      for (const [key, versions] of keys) {
        const kept = prune(versions, this.compacted);
        if (kept.length === 0) keys.delete(key);
        else keys.set(key, kept);
      }
      this.sortedKeys.delete(resource);
    }
  }

  private countVisible(keys: string[], prefix: string, versions: Map<string, Version[]> | undefined, query: ListQuery) {
    let remaining = 0;
    let anyMatch = false;
    for (const key of keys) {
      if (!key.startsWith(prefix)) continue;
      const object = visibleAt(versions?.get(key), query.atRv);
      if (!object) continue;
      remaining++;
      if (!anyMatch && query.filter(object)) anyMatch = true;
      if (anyMatch && !query.countRemaining) break;
    }
    return { remaining, anyMatch };
  }

  private keysOf(resource: string): string[] {
    let keys = this.sortedKeys.get(resource);
    if (!keys) {
      keys = [...(this.byResource.get(resource)?.keys() ?? [])].sort(compareKeys);
      this.sortedKeys.set(resource, keys);
    }
    return keys;
  }
}

function frozenCopy(object: KubeObject): KubeObject {
  return deepFreeze(JSON.parse(JSON.stringify(object)) as KubeObject);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function firstAfter(keys: string[], after: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((keys[mid] as string) <= after) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Keeps the version visible at `rv` (unless it is a deletion) and every later one. */
function prune(versions: Version[], rv: number): Version[] {
  let first = versions.length - 1;
  while (first > 0 && (versions[first] as Version).rv > rv) first--;
  const kept = versions.slice(first);
  return kept.length === 1 && (kept[0] as Version).object === null && (kept[0] as Version).rv <= rv ? [] : kept;
}

function visibleAt(versions: Version[] | undefined, rv: number): KubeObject | null {
  if (!versions) return null;
  for (let i = versions.length - 1; i >= 0; i--) {
    const version = versions[i] as Version;
    if (version.rv <= rv) return version.object;
  }
  return null;
}
