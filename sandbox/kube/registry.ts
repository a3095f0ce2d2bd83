/**
 * Object semantics on top of the versioned store, as the generic registry
 * (k8s.io/apiserver/pkg/registry/generic/registry) gives them: create, get, update with
 * resourceVersion preconditions, delete with finalizers and graceful pod deletion.
 */
import { canonical } from './canonical.js';
import { prepareForCreate, prepareForUpdate, sameObject, timestamp } from './object-meta.js';
import type { ResourceType } from './resources.js';
import { findByKind } from './resources.js';
import { errors } from './status.js';
import { objectKey, type KubeObject, type VersionedStore } from './store.js';
import { validate, validateUpdate } from './validation.js';

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  /** Deprecated; `false` with a pending deletion is the one case upstream answers 202. */
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface DeleteResult {
  object: KubeObject;
  /** False when deletion is pending on finalizers or a grace period. */
  deleted: boolean;
}

export interface WriteOptions {
  /** Writes the sandbox makes itself (seeds, kubelet): creates keep their status; updates skip update rules. */
  trusted?: boolean;
  dryRun?: boolean;
}

const namespaceType = findByKind('Namespace') as ResourceType;

export class Registry {
  constructor(
    readonly store: VersionedStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const object = this.store.get(type.resource, this.key(type, namespace, name));
    if (!object) throw errors.notFound(type, name);
    return object;
  }

  find(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.store.get(type.resource, this.key(type, namespace, name));
  }

  create(type: ResourceType, namespace: string | undefined, body: KubeObject, options: WriteOptions = {}): KubeObject {
    checkNamespace(type, namespace, body);
    if (!options.trusted && body.metadata.resourceVersion) {
      throw errors.internal('resourceVersion should not be set on objects to be created');
    }
    const object = canonicalCreate(
      type,
      { ...body, metadata: { ...body.metadata, ...(type.namespaced ? { namespace } : {}) } },
      this.now(),
      options.trusted === true,
    );
    validate(type, object);
    if (type.namespaced && !options.trusted && !this.find(namespaceType, undefined, namespace as string))
      throw errors.namespaceNotFound(namespace as string);
    const name = String(object.metadata.name);
    if (this.find(type, namespace, name)) throw errors.alreadyExists(type, name);
    return options.dryRun ? object : this.write(type, namespace, name, object);
  }

  /** PUT: `next` replaces the object; a stale `metadata.resourceVersion` is a 409. */
  update(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    next: KubeObject,
    subresource?: string,
    options: WriteOptions = {},
  ): KubeObject {
    checkNamespace(type, namespace, next);
    if (next.metadata.name !== undefined && next.metadata.name !== name) {
      throw errors.badRequest(`the name of the object (${String(next.metadata.name)}) does not match the name on the URL (${name})`);
    }
    const current = this.find(type, namespace, name);
    if (!current) {
      if (type.createOnUpdate && !subresource)
        return this.create(type, namespace, { ...next, metadata: { ...next.metadata, name, resourceVersion: undefined } }, options);
      throw errors.notFound(type, name);
    }
    const asked = next.metadata.resourceVersion;
    if (!asked && !type.unconditionalUpdate && !options.trusted) {
      throw errors.invalid(type, name, [
        { reason: 'FieldValueInvalid', field: 'metadata.resourceVersion', message: 'Invalid value: 0x0: must be specified for an update' },
      ]);
    }
    if (asked && asked !== current.metadata.resourceVersion) throw errors.conflict(type, name);
    if (next.metadata.uid && next.metadata.uid !== current.metadata.uid) {
      throw errors.conflict(
        type,
        name,
        `Precondition failed: UID in precondition: ${String(next.metadata.uid)}, UID in object meta: ${String(current.metadata.uid)}`,
      );
    }
    const prepared = canonical(type, prepareForUpdate(type, current, { ...next, metadata: { ...next.metadata, name } }, subresource));
    if (!options.trusted) validateUpdate(type, current, prepared);
    if (sameObject(current, prepared) || options.dryRun) return sameObject(current, prepared) ? current : prepared;
    if (finalizedAfterDeletion(prepared)) return this.remove(type, namespace, name, prepared);
    return this.write(type, namespace, name, prepared);
  }

  delete(type: ResourceType, namespace: string | undefined, name: string, options: DeleteOptions = {}, dryRun = false): DeleteResult {
    const current = this.get(type, namespace, name);
    checkPreconditions(type, current, options);
    const grace = this.gracePeriod(type, current, options);
    const finalizers = current.metadata.finalizers ?? [];
    if (grace === 0 && finalizers.length === 0) {
      return { object: dryRun ? current : this.remove(type, namespace, name, current), deleted: true };
    }
    const meta = current.metadata;
    const pendingGrace = meta.deletionGracePeriodSeconds;
    if (meta.deletionTimestamp && pendingGrace !== undefined && pendingGrace <= grace) return { object: current, deleted: false };
    const marked: KubeObject = {
      ...current,
      metadata: { ...meta, deletionTimestamp: timestamp(new Date(this.now().getTime() + grace * 1000)), deletionGracePeriodSeconds: grace },
    };
    return { object: dryRun ? marked : this.write(type, namespace, name, marked), deleted: false };
  }

  private gracePeriod(type: ResourceType, pod: KubeObject, options: DeleteOptions): number {
    if (type.kind !== 'Pod') return 0;
    // Unscheduled and finished pods have no kubelet to wait for: upstream deletes them at once.
    const phase = (pod.status as Record<string, unknown> | undefined)?.phase;
    if (!(pod.spec as Record<string, unknown> | undefined)?.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
    const fromSpec = (pod.spec as Record<string, unknown>).terminationGracePeriodSeconds;
    return options.gracePeriodSeconds ?? (typeof fromSpec === 'number' ? fromSpec : 30);
  }

  private write(type: ResourceType, namespace: string | undefined, name: string, object: KubeObject): KubeObject {
    return this.store.put(type.resource, this.key(type, namespace, name), object) as KubeObject;
  }

  private remove(type: ResourceType, namespace: string | undefined, name: string, last: KubeObject): KubeObject {
    this.store.put(type.resource, this.key(type, namespace, name), null);
    return { ...last, metadata: { ...last.metadata, resourceVersion: String(this.store.currentRv()) } };
  }

  private key(type: ResourceType, namespace: string | undefined, name: string): string {
    return objectKey(type.namespaced ? (namespace ?? 'default') : undefined, name);
  }
}

function canonicalCreate(type: ResourceType, body: KubeObject, now: Date, keepStatus: boolean): KubeObject {
  return canonical(type, prepareForCreate(type, body, now, keepStatus));
}

/** The last finalizer of an object already being deleted (without grace) was removed: it goes. */
function finalizedAfterDeletion(object: KubeObject): boolean {
  const meta = object.metadata;
  return Boolean(meta.deletionTimestamp) && (meta.finalizers ?? []).length === 0 && Number(meta.deletionGracePeriodSeconds ?? 0) === 0;
}

function checkNamespace(type: ResourceType, namespace: string | undefined, body: KubeObject): void {
  if (type.namespaced && body.metadata.namespace && body.metadata.namespace !== namespace) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
}

function checkPreconditions(type: ResourceType, current: KubeObject, options: DeleteOptions): void {
  const { uid, resourceVersion } = options.preconditions ?? {};
  const name = String(current.metadata.name);
  if (uid && uid !== current.metadata.uid) {
    throw errors.conflict(
      type,
      name,
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${String(current.metadata.uid)}`,
    );
  }
  if (resourceVersion && resourceVersion !== current.metadata.resourceVersion) {
    throw errors.conflict(
      type,
      name,
      `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${String(current.metadata.resourceVersion)}`,
    );
  }
}
