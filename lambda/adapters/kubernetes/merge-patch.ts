/**
 * JSON merge patches (RFC 7386). client-node sends JSON Patch unless told otherwise; a
 * merge patch that carries `metadata.resourceVersion` is applied only if the object still
 * has that version (409 Conflict otherwise), which makes read-modify-write safe.
 */
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';

export const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
