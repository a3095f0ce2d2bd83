/** Writing a node's taints (the out-of-service taint of dead instances). Implemented by `adapters/kubernetes/node-taints.ts`. */
import type { KubeNode } from '../core/kube.js';
import type { NodeTaintEdit } from '../core/out-of-service.js';
import type { NodeName } from '../core/types.js';

export interface NodeTaints {
  /**
   * Reads the node, asks `edit` what its taints and our mark should be, and writes that guarded
   * by the resourceVersion read; when another writer got in between, re-reads and asks again (a
   * bounded number of times). `unchanged` when `edit` returns undefined for the live node,
   * `node-gone` when the node no longer exists. Throws on any other API error.
   */
  editTaints(name: NodeName, edit: (live: KubeNode) => NodeTaintEdit | undefined): Promise<'updated' | 'unchanged' | 'node-gone'>;
}
