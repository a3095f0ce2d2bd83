/**
 * The three patch types of PATCH requests: JSON merge patch (RFC 7386), strategic merge
 * patch (k8s.io/apimachinery strategicpatch, for the directives and list strategies the
 * types here use) and JSON patch (RFC 6902, via fast-json-patch).
 */
import jsonPatch from 'fast-json-patch';
import type { FieldSchema } from './patch-schema.js';
import { ApiError, errors } from './status.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export const patchTypes = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
} as const;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** RFC 7386: objects merge recursively, `null` removes, anything else replaces. */
export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return structuredClone(patch);
  const result: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key] ?? null, value);
  }
  return result;
}

const deletePrefix = '$deleteFromPrimitiveList/';
const orderPrefix = '$setElementOrder/';

/** Strategic merge patch of one map; `schema` says how each list field merges. */
function strategicMergePatch(target: Json, patch: Json, schema: FieldSchema | undefined): Json {
  if (!isObject(patch)) return structuredClone(patch);
  const directive = patch.$patch;
  if (directive === 'delete') return null;
  const { $patch: _directive, $retainKeys: retain, ...rest } = patch;
  let result: JsonObject = directive === 'replace' ? {} : isObject(target) ? { ...target } : {};
  if (Array.isArray(retain)) result = Object.fromEntries(Object.entries(result).filter(([k]) => retain.includes(k)));
  for (const [key, value] of Object.entries(rest)) {
    if (key.startsWith(deletePrefix) || key.startsWith(orderPrefix)) continue;
    const field = schema?.fields?.[key];
    if (value === null) delete result[key];
    else if (Array.isArray(value)) result[key] = mergeList(result[key], value, field);
    else result[key] = strategicMergePatch(result[key] ?? null, value, field);
  }
  applyListDirectives(result, rest);
  return result;
}

function mergeList(target: Json | undefined, patch: Json[], field: FieldSchema | undefined): Json[] {
  const current = Array.isArray(target) ? target : [];
  if (field?.primitiveMerge) return [...current, ...patch.filter((v) => !current.includes(v))];
  const key = field?.mergeKey;
  if (!key) return structuredClone(patch);
  if (patch.some((e) => isObject(e) && e.$patch === 'replace')) {
    return patch.filter((e) => !(isObject(e) && e.$patch === 'replace'));
  }
  const merged = [...current];
  for (const element of patch) {
    if (!isObject(element) || !(key in element))
      throw errors.badRequest(`map: ${JSON.stringify(element)} does not contain declared merge key: ${key}`);
    const at = merged.findIndex((e) => isObject(e) && e[key] === element[key]);
    if (element.$patch === 'delete') {
      if (at >= 0) merged.splice(at, 1);
    } else if (at >= 0) merged[at] = strategicMergePatch(merged[at] ?? null, element, field);
    else merged.push(strategicMergePatch(null, element, field));
  }
  return merged;
}

/** `$deleteFromPrimitiveList/f` removes values from set-like lists; `$setElementOrder/f` orders a list. */
function applyListDirectives(result: JsonObject, patch: JsonObject): void {
  for (const [key, value] of Object.entries(patch)) {
    if (!Array.isArray(value)) continue;
    if (key.startsWith(deletePrefix)) {
      const field = key.slice(deletePrefix.length);
      const list = result[field];
      if (Array.isArray(list)) result[field] = list.filter((v) => !value.includes(v));
    } else if (key.startsWith(orderPrefix)) {
      const field = key.slice(orderPrefix.length);
      const list = result[field];
      if (Array.isArray(list)) result[field] = orderBy(list, value);
    }
  }
}

function orderBy(list: Json[], order: Json[]): Json[] {
  const position = (e: Json) => {
    const at = order.findIndex((o) => (isObject(o) && isObject(e) ? Object.entries(o).every(([k, v]) => e[k] === v) : o === e));
    return at < 0 ? order.length : at;
  };
  return list
    .map((e, i) => ({ e, i }))
    .sort((a, b) => position(a.e) - position(b.e) || a.i - b.i)
    .map((x) => x.e);
}

/** RFC 6902. Malformed documents are 400; operations that cannot apply are 422, as upstream. */
function jsonPatchApply(target: Json, operations: Json): Json {
  if (!Array.isArray(operations)) throw errors.badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  try {
    return jsonPatch.applyPatch(target, operations as unknown as jsonPatch.Operation[], true, false).newDocument;
  } catch (error) {
    if (error instanceof jsonPatch.JsonPatchError) {
      const message = error.name === 'TEST_OPERATION_FAILED' ? 'testing value failed' : (error.message.split('\n')[0] ?? error.name);
      throw new ApiError(422, 'Invalid', `the server rejected our request due to an error in our request: ${message}`);
    }
    throw error;
  }
}

/** Applies a PATCH body of `contentType` to `current`. */
export function applyPatch(contentType: string, current: object, body: unknown, schema: FieldSchema): object {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === patchTypes.json) return jsonPatchApply(current as Json, body as Json) as object;
  if (type !== patchTypes.merge && type !== patchTypes.strategic) throw errors.unsupportedMediaType(contentType);
  if (!isObject(body)) throw errors.badRequest('json: cannot unmarshal non-object into a patch of an object');
  const patched = type === patchTypes.merge ? mergePatch(current as Json, body) : strategicMergePatch(current as Json, body, schema);
  return patched as object;
}
