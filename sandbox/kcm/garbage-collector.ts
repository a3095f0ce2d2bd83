/**
 * kcm's garbage collector, for the one dependent the sandbox creates: a CSINode is owned by its
 * Node (the kubelet sets the ownerReference when it registers the driver), so it goes when that
 * Node object is deleted — or replaced by a new one of the same name (another uid).
 */
import type { KcmKube, View } from './context.js';

interface CsiNode {
  metadata: { name?: string; ownerReferences?: { kind?: string; name?: string; uid?: string }[] };
}

export function collectCsiNodes(kube: KcmKube, view: View): void {
  const nodeUids = new Set([...view.nodes.values()].map((n) => n.metadata.uid));
  for (const csiNode of kube.list('CSINode') as CsiNode[]) {
    const owners = (csiNode.metadata.ownerReferences ?? []).filter((o) => o.kind === 'Node');
    if (owners.length === 0 || owners.some((o) => nodeUids.has(o.uid))) continue;
    kube.components.delete('CSINode', undefined, csiNode.metadata.name ?? '');
  }
}
