/**
 * The node taint writer: a JSON patch (RFC 6902) whose first operation tests the
 * resourceVersion read, so a concurrent writer (the node lifecycle controller, an operator, a
 * second pass) makes the patch fail whole (422 on the failed test, 409 on a stale version)
 * instead of one write erasing the other's taint. `spec.taints` is an atomic list: it is written
 * whole, from the live list.
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import type { KubeNode } from '../../core/kube.js';
import { TAINTED_BY_US_ANNOTATION, type NodeTaintEdit } from '../../core/out-of-service.js';
import type { NodeTaints } from '../../ports/node-taints.js';
import { describeApiError, isConflict, isNotFound } from './api-errors.js';
import { nodeFromJson } from './json-mapping.js';
import { getOrUndefined } from './reads.js';

/** RFC 6901: `~` and `/` in a key are escaped. */
const pointer = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

export function taintPatch(live: KubeNode, edit: NodeTaintEdit): object[] {
  const ops: object[] = [{ op: 'test', path: '/metadata/resourceVersion', value: live.metadata.resourceVersion }];
  ops.push(
    live.spec ? { op: 'add', path: '/spec/taints', value: edit.taints } : { op: 'add', path: '/spec', value: { taints: edit.taints } },
  );
  const annotations = live.metadata.annotations;
  const marked = annotations?.[TAINTED_BY_US_ANNOTATION] !== undefined;
  if (edit.mark !== null && annotations === undefined) {
    ops.push({ op: 'add', path: '/metadata/annotations', value: { [TAINTED_BY_US_ANNOTATION]: edit.mark } });
  } else if (edit.mark !== null) {
    ops.push({ op: 'add', path: `/metadata/annotations/${pointer(TAINTED_BY_US_ANNOTATION)}`, value: edit.mark });
  } else if (marked) {
    ops.push({ op: 'remove', path: `/metadata/annotations/${pointer(TAINTED_BY_US_ANNOTATION)}` });
  }
  return ops;
}

/** 422 from a failed `test` (the node changed since it was read) or 409 (stale resourceVersion). */
const isRace = (error: unknown) => isConflict(error) || (error as { code?: number } | undefined)?.code === 422;

export class KubernetesNodeTaints implements NodeTaints {
  constructor(
    private readonly core: CoreV1Api,
    private readonly maxConflictRetries: number,
  ) {}

  async editTaints(name: string, edit: (live: KubeNode) => NodeTaintEdit | undefined): Promise<'updated' | 'unchanged' | 'node-gone'> {
    for (let attempt = 0; attempt <= this.maxConflictRetries; attempt++) {
      const read = await getOrUndefined(`node ${name}`, () => this.core.readNode({ name }));
      if (read === undefined) return 'node-gone';
      const live = nodeFromJson(read);
      const change = edit(live);
      if (change === undefined) return 'unchanged';
      try {
        await this.core.patchNode({ name, body: taintPatch(live, change) });
        return 'updated';
      } catch (error) {
        if (isNotFound(error)) return 'node-gone';
        if (!isRace(error)) throw new Error(`patching the taints of nodes/${name} failed: ${describeApiError(error)}`, { cause: error });
      }
    }
    throw new Error(`patching the taints of nodes/${name}: still racing after ${this.maxConflictRetries + 1} attempts`);
  }
}
