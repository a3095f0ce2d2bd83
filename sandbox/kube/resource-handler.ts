/**
 * Serves one resource request (already authenticated and parsed): maps the RBAC verb and
 * subresource to a registry operation and returns the status code and body to send.
 */
import { badMicroTime } from './canonical.js';
import { checkStrictFields } from './field-validation.js';
import { listObjects } from './list.js';
import { schemasOf } from './openapi.js';
import { applyPatch } from './patch.js';
import { patchSchemaFor } from './patch-schema.js';
import type { RequestInfo } from './paths.js';
import type { DeleteOptions, Registry } from './registry.js';
import { findByResource, type ResourceType } from './resources.js';
import { ApiError, errors, successStatus } from './status.js';
import type { KubeObject } from './store.js';
import type { WatchRequest } from './watch.js';

export interface ResourceRequest {
  info: RequestInfo;
  query: URLSearchParams;
  contentType: string;
  body: unknown;
}

export interface Reply {
  status: number;
  body: unknown;
  /** Set for a watch: the server streams it instead of sending `body`. */
  watch?: WatchRequest;
}

function notFoundPath(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource');
}

function asObject(body: unknown): KubeObject {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw errors.badRequest('the request body must be a JSON object');
  const object = body as Record<string, unknown>;
  const metadata = object.metadata;
  return { ...object, metadata: metadata !== null && typeof metadata === 'object' ? { ...metadata } : {} };
}

function deleteOptions(body: unknown, query: URLSearchParams): DeleteOptions {
  const options = body !== null && typeof body === 'object' ? (body as DeleteOptions) : {};
  const grace = query.get('gracePeriodSeconds');
  const orphan = query.get('orphanDependents');
  return {
    ...options,
    ...(grace !== null ? { gracePeriodSeconds: Number(grace) } : {}),
    ...(orphan !== null ? { orphanDependents: orphan === 'true' } : {}),
  };
}

/** The decoder's verdict on MicroTime fields (a 400 before any validation, as upstream's JSON decoding fails first). */
function checkMicroTimes(type: ResourceType, object: KubeObject): KubeObject {
  const bad = badMicroTime(object);
  if (bad) {
    throw errors.badRequest(
      `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: ${bad[0]}: parsing time "${bad[1]}" as "2006-01-02T15:04:05.000000Z07:00"`,
    );
  }
  return object;
}

function checkKind(type: ResourceType, object: KubeObject): void {
  if (object.kind !== undefined && object.kind !== type.kind) {
    throw errors.badRequest(
      `the API version in the data (${String(object.apiVersion)}) / kind (${String(object.kind)}) does not match the expected ${type.kind}`,
    );
  }
}

export function handleResource(registry: Registry, request: ResourceRequest): Reply {
  const { info, query } = request;
  const type = findByResource(info.group, info.version, info.resource);
  if (!type) throw notFoundPath();
  if (info.subresource !== undefined && !(info.subresource === 'status' && type.hasStatus)) throw notFoundPath();
  // A cluster-scoped type under /namespaces/<ns>/ does not exist (namespaces themselves aside).
  if (!type.namespaced && info.namespace !== undefined && type.resource !== 'namespaces') throw notFoundPath();
  const namespace = type.namespaced ? info.namespace : undefined;
  if (type.namespaced && info.name !== undefined && namespace === undefined) throw notFoundPath();
  const dryRun = query.getAll('dryRun').includes('All');
  const strict = (object: KubeObject) => {
    if (query.get('fieldValidation') === 'Strict') checkStrictFields(type, object, schemasOf(type));
    return checkMicroTimes(type, object);
  };
  const name = info.name as string;
  switch (info.verb) {
    case 'watch':
      if (info.subresource !== undefined) throw errors.methodNotAllowed('watch is not allowed on a subresource');
      // A watch on a named object is a watch with the name as a field selector.
      return {
        status: 200,
        body: undefined,
        watch: { type, ...(namespace !== undefined ? { namespace } : {}), ...(info.name !== undefined ? { name } : {}), query },
      };
    case 'list':
      return { status: 200, body: listObjects(registry.store, type, namespace, query) };
    case 'get':
      return { status: 200, body: registry.get(type, namespace, name) };
    case 'create': {
      if (info.name !== undefined) throw errors.methodNotAllowed(`POST is not allowed on a named ${type.resource} resource`);
      const object = strict(asObject(request.body));
      checkKind(type, object);
      if (type.namespaced && namespace === undefined) throw notFoundPath();
      return { status: 201, body: registry.create(type, namespace, object, { dryRun }) };
    }
    case 'update': {
      const object = strict(asObject(request.body));
      checkKind(type, object);
      const existed = registry.find(type, namespace, name) !== undefined;
      const updated = registry.update(type, namespace, name, object, info.subresource, { dryRun });
      return { status: existed ? 200 : 201, body: updated };
    }
    case 'patch': {
      const current = registry.get(type, namespace, name);
      const patched = strict(asObject(applyPatch(request.contentType, current, request.body, patchSchemaFor(type.kind))));
      // A resourceVersion the patch did not touch is the current one; a changed one is a precondition.
      return { status: 200, body: registry.update(type, namespace, name, patched, info.subresource, { dryRun }) };
    }
    case 'delete': {
      if (info.subresource !== undefined) throw errors.methodNotAllowed('DELETE is not allowed on a subresource');
      const options = deleteOptions(request.body, query);
      const result = registry.delete(type, namespace, name, options, dryRun);
      // Upstream answers a pending deletion with 200 and the object; 202 only for orphanDependents=false.
      if (!result.deleted) return { status: options.orphanDependents === false ? 202 : 200, body: result.object };
      return {
        status: 200,
        body: type.returnsDeletedObject
          ? result.object
          : { ...successStatus(type, name), details: { ...successStatus(type, name).details, uid: result.object.metadata.uid as string } },
      };
    }
    case 'deletecollection': {
      const list = listObjects(registry.store, type, namespace, query);
      for (const item of list.items)
        registry.delete(type, item.metadata.namespace, String(item.metadata.name), deleteOptions(request.body, query), dryRun);
      return { status: 200, body: { ...list, metadata: { resourceVersion: String(registry.store.currentRv()) } } };
    }
    default:
      throw errors.methodNotAllowed(`the server does not allow this method on the requested resource`);
  }
}
