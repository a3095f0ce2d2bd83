/**
 * Finalizers as external-attacher writes them (`util.go` addFinalizerPatch / removeFinalizerPatch):
 * JSON patches (RFC 6902) that append or remove one entry, each guarded by a `test` op, so a writer
 * working from a stale read fails (422) instead of putting back what another controller removed.
 */
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { isConflict, isUnprocessable } from './api-errors.js';

export const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

export type JsonPatchOp = { op: 'test' | 'add' | 'replace'; path: string; value: unknown } | { op: 'remove'; path: string };

/**
 * Appends `finalizer` to the list as read (`existing`); the test op fails the patch if the list
 * changed. An absent list is guarded by the object's resourceVersion instead (a `test` of a missing
 * path is not portable across JSON-patch implementations).
 */
export function addFinalizerOps(existing: string[] | undefined, finalizer: string, resourceVersion: string | undefined): JsonPatchOp[] {
  if (existing === undefined || existing.length === 0)
    return [
      { op: 'test', path: '/metadata/resourceVersion', value: resourceVersion },
      { op: 'add', path: '/metadata/finalizers', value: [finalizer] },
    ];
  return [
    { op: 'test', path: '/metadata/finalizers', value: existing },
    { op: 'add', path: '/metadata/finalizers/-', value: finalizer },
  ];
}

/** Removes `finalizer` by index after testing it is still there; none when it is absent. */
export function removeFinalizerOps(existing: string[] | undefined, finalizer: string): JsonPatchOp[] {
  const index = (existing ?? []).indexOf(finalizer);
  if (index < 0) return [];
  const path = `/metadata/finalizers/${index}`;
  return [
    { op: 'test', path, value: finalizer },
    { op: 'remove', path },
  ];
}

/** An annotation set in the same patch (`/` in a key is `~1` in a JSON pointer). */
export function setAnnotationOps(existing: Record<string, string> | undefined, key: string, value: string): JsonPatchOp[] {
  if (existing?.[key] === value) return [];
  if (existing === undefined) return [{ op: 'add', path: '/metadata/annotations', value: { [key]: value } }];
  return [{ op: 'add', path: `/metadata/annotations/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, value }];
}

/** 409, or 422 from a failed `test` op: the object changed since it was read; read it again. */
export function isStale(error: unknown): boolean {
  return isConflict(error) || isUnprocessable(error);
}
