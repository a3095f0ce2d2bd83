/**
 * Metadata the server owns: uid, creationTimestamp, generation, generateName, and the
 * per-type create/update strategies (which parts of an object a write may change).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { apiVersionOf, type ResourceType } from './resources.js';
import type { KubeObject } from './store.js';

/** RFC 3339 with second precision, as metav1.Time serialises. */
export function timestamp(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// The alphabet of names.SimpleNameGenerator: no vowels, no confusable digits.
const alphabet = 'bcdfghjklmnpqrstvwxz2456789';

function generateSuffix(): string {
  return Array.from({ length: 5 }, () => alphabet[randomInt(alphabet.length)]).join('');
}

const initialStatus: Record<string, object> = {
  Pod: { phase: 'Pending' },
  PersistentVolumeClaim: { phase: 'Pending' },
  PersistentVolume: { phase: 'Pending' },
};

/** Fills server-owned metadata on a new object; `keepStatus` for seeded fixtures. */
export function prepareForCreate(type: ResourceType, object: KubeObject, now: Date, keepStatus: boolean): KubeObject {
  const meta = { ...object.metadata };
  if (!meta.name && meta.generateName) meta.name = `${String(meta.generateName)}${generateSuffix()}`;
  if (!type.namespaced) delete meta.namespace;
  meta.uid = meta.uid ?? randomUUID();
  meta.creationTimestamp = meta.creationTimestamp ?? timestamp(now);
  if (type.hasGeneration) meta.generation = meta.generation ?? 1;
  else delete meta.generation;
  if (!keepStatus) {
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
  }
  const prepared: KubeObject = { ...object, apiVersion: apiVersionOf(type), kind: type.kind, metadata: meta };
  if (!keepStatus && type.resetStatusOnCreate) {
    const status = initialStatus[type.kind];
    if (status) prepared.status = { ...status };
    else delete prepared.status;
  }
  return prepared;
}

const serverOwned = ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'namespace'];

function withoutMetaAndStatus(object: KubeObject): string {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = object;
  return JSON.stringify(rest);
}

/** `next` metadata with the server-owned fields as they are stored. */
function serverOwnedFrom(current: KubeObject, next: KubeObject['metadata']): KubeObject['metadata'] {
  const meta = { ...next };
  for (const field of serverOwned) {
    if (current.metadata[field] === undefined) delete meta[field];
    else meta[field] = current.metadata[field];
  }
  return meta;
}

/**
 * The object an update stores. Main-resource writes keep the stored status of types with a
 * status subresource; status writes keep everything but status (metav1.ResetObjectMetaForStatus),
 * except where the status strategy keeps metadata changes too (nodes).
 */
export function prepareForUpdate(type: ResourceType, current: KubeObject, next: KubeObject, subresource: string | undefined): KubeObject {
  if (subresource === 'status') {
    const metadata = type.statusKeepsMetadata ? serverOwnedFrom(current, next.metadata) : { ...current.metadata };
    const merged: KubeObject = { ...current, metadata };
    if (next.status === undefined) delete merged.status;
    else merged.status = next.status;
    return merged;
  }
  const meta = serverOwnedFrom(current, next.metadata);
  const prepared: KubeObject = { ...next, apiVersion: apiVersionOf(type), kind: type.kind, metadata: meta };
  if (type.hasStatus) {
    if (current.status === undefined) delete prepared.status;
    else prepared.status = current.status;
  }
  if (type.hasGeneration && withoutMetaAndStatus(current) !== withoutMetaAndStatus(prepared))
    meta.generation = Number(current.metadata.generation ?? 0) + 1;
  return prepared;
}

/** Equal apart from resourceVersion: such a write is a no-op and keeps the revision, as etcd's GuaranteedUpdate does. */
export function sameObject(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject) => JSON.stringify(sortKeys({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } }));
  return strip(a) === strip(b);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, sortKeys(v)]),
  );
}
