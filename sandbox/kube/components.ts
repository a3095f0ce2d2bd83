/**
 * Writes other control-plane components make (kube-controller-manager's controllers), in process:
 * each is an API request as far as the object is concerned (validated, resourceVersion bumped,
 * status subresource rules applied, finalizers honoured) but it is not logged, so the request log
 * and counters stay the controller's own.
 */
import { ApiError } from './status.js';
import { findByKind, type ResourceType } from './resources.js';
import type { Registry } from './registry.js';
import type { KubeObject } from './store.js';

export interface ComponentClient {
  /** POST; an existing name is the apiserver's 409 AlreadyExists (an `ApiError`). */
  create(kind: string, namespace: string | undefined, object: object): KubeObject;
  /** GET, then PUT of `change(current)` to the main resource or to `subresource`. */
  update(
    kind: string,
    namespace: string | undefined,
    name: string,
    change: (current: KubeObject) => object,
    subresource?: 'status',
  ): KubeObject;
  /** DELETE: `gone` false while finalizers hold the object; `missing` for a 404. */
  delete(kind: string, namespace: string | undefined, name: string): { gone: boolean; missing: boolean };
}

function typeOf(kind: string): ResourceType {
  const type = findByKind(kind);
  if (!type) throw new Error(`kube sandbox: unknown kind "${kind}"`);
  return type;
}

function namespaceOf(type: ResourceType, namespace: string | undefined): string | undefined {
  return type.namespaced ? (namespace ?? 'default') : undefined;
}

export function createComponentClient(registry: Registry): ComponentClient {
  return {
    create(kind, namespace, object) {
      const type = typeOf(kind);
      return registry.create(type, namespaceOf(type, namespace), structuredClone(object) as KubeObject);
    },
    update(kind, namespace, name, change, subresource) {
      const type = typeOf(kind);
      const current = registry.get(type, namespaceOf(type, namespace), name);
      const next = change(structuredClone(current)) as KubeObject;
      return registry.update(type, namespaceOf(type, namespace), name, next, subresource);
    },
    delete(kind, namespace, name) {
      const type = typeOf(kind);
      try {
        return { gone: registry.delete(type, namespaceOf(type, namespace), name).deleted, missing: false };
      } catch (error) {
        if (error instanceof ApiError && error.status.code === 404) return { gone: true, missing: true };
        throw error;
      }
    },
  };
}
