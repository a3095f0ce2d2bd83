/**
 * Test-side access to the objects: seed fixtures (creating their namespaces on the way) and
 * read objects back by kind without going through HTTP.
 */
import { canonical } from './canonical.js';
import type { Registry } from './registry.js';
import { apiVersionOf, findByKind, type ResourceType } from './resources.js';
import { objectKey, type KubeObject } from './store.js';
import { validate } from './validation.js';

export const defaultNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function typeOf(kind: string): ResourceType {
  const type = findByKind(kind);
  if (!type) throw new Error(`kube sandbox: unknown kind "${kind}"`);
  return type;
}

export function ensureNamespace(registry: Registry, name: string): void {
  const type = typeOf('Namespace');
  if (registry.find(type, undefined, name)) return;
  registry.create(
    type,
    undefined,
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } },
    { trusted: true },
  );
}

/**
 * Stores each object as given, status included (namespace defaults to 'default'); an object
 * that already exists is replaced, keeping its uid and creationTimestamp.
 */
export function seedObjects(registry: Registry, objects: object[]): KubeObject[] {
  return objects.map((raw) => {
    const object = structuredClone(raw) as KubeObject;
    if (typeof object.kind !== 'string' || !object.metadata || typeof object.metadata !== 'object') {
      throw new Error(`kube sandbox: seed objects need kind and metadata, got ${JSON.stringify(raw).slice(0, 120)}`);
    }
    const type = typeOf(object.kind);
    if (object.apiVersion !== undefined && object.apiVersion !== apiVersionOf(type)) {
      throw new Error(`kube sandbox: ${object.kind} is served as ${apiVersionOf(type)}, not ${String(object.apiVersion)}`);
    }
    const namespace = type.namespaced ? String(object.metadata.namespace ?? 'default') : undefined;
    if (namespace !== undefined) ensureNamespace(registry, namespace);
    const existing = object.metadata.name ? registry.find(type, namespace, String(object.metadata.name)) : undefined;
    if (!existing)
      return registry.create(
        type,
        namespace,
        { ...object, metadata: { ...object.metadata, resourceVersion: undefined } },
        { trusted: true },
      );
    const replaced = {
      ...object,
      apiVersion: apiVersionOf(type),
      metadata: {
        ...object.metadata,
        ...(namespace ? { namespace } : {}),
        uid: existing.metadata.uid,
        creationTimestamp: existing.metadata.creationTimestamp,
      },
    };
    validate(type, replaced);
    return registry.store.put(type.resource, objectKey(namespace, String(object.metadata.name)), canonical(type, replaced)) as KubeObject;
  });
}

/** Stored objects are frozen; tests get copies they may change. */
function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export function getObject(registry: Registry, kind: string, namespace: string | undefined, name: string): KubeObject | undefined {
  const type = typeOf(kind);
  const object = registry.find(type, type.namespaced ? (namespace ?? 'default') : undefined, name);
  return object ? copy(object) : undefined;
}

export function listKind(registry: Registry, kind: string, namespace?: string): KubeObject[] {
  const type = typeOf(kind);
  const page = registry.store.list({
    resource: type.resource,
    atRv: registry.store.currentRv(),
    filter: () => true,
    ...(type.namespaced && namespace !== undefined ? { namespace } : {}),
  });
  return copy(page.items);
}
