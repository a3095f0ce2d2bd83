/**
 * What the core needs to know about each node (DESIGN §6): managed by us, Ready, out of service,
 * its instance, what the kubelet has mounted and what the node object reports as attached.
 */
import { compareText } from './compare.js';
import type { AttachedVolume, KubeNode } from './kube.js';
import { parseProviderId } from './provider-id.js';
import type { NodeName, NodeView, UniqueVolumeName } from './types.js';

/** Set by the kubelet when attach/detach is left to the controller; upstream checks only its presence. */
export const MANAGED_ANNOTATION = 'volumes.kubernetes.io/controller-managed-attach-detach';
/** Upstream's NodeOutOfServiceVolumeDetach: the key alone counts, whatever the value or effect. */
export const OUT_OF_SERVICE_TAINT = 'node.kubernetes.io/out-of-service';

function nodeViewOf(node: KubeNode & { metadata: { name: string } }): { view: NodeView; problem?: string } {
  const name = node.metadata.name;
  const provider = parseProviderId(node.spec?.providerID);
  const view: NodeView = {
    name,
    managed: node.metadata.annotations?.[MANAGED_ANNOTATION] !== undefined,
    ready: (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
    outOfService: (node.spec?.taints ?? []).some((t) => t.key === OUT_OF_SERVICE_TAINT),
    volumesInUse: [...(node.status?.volumesInUse ?? [])],
    volumesAttached: (node.status?.volumesAttached ?? []).map((v) => ({ name: v.name, devicePath: v.devicePath })),
  };
  if (!provider.ok) return { view, problem: `node ${name}: ${provider.error}` };
  return { view: { ...view, instanceId: provider.instanceId, zone: provider.zone } };
}

/** A view of every named node; nameless or duplicate objects become problems. */
export function buildNodeViews(nodes: KubeNode[]): { nodes: Map<NodeName, NodeView>; problems: string[] } {
  const views = new Map<NodeName, NodeView>();
  const problems: string[] = [];
  for (const node of nodes) {
    const name = node.metadata.name;
    if (!name) {
      problems.push('a node object has no metadata.name');
      continue;
    }
    if (views.has(name)) {
      problems.push(`node ${name} is listed twice; the first is used`);
      continue;
    }
    const { view, problem } = nodeViewOf({ ...node, metadata: { ...node.metadata, name } });
    views.set(name, view);
    if (problem) problems.push(problem);
  }
  return { nodes: views, problems };
}

/** The kubelet still has the volume mounted (or is mounting it): upstream's MountedByNode. */
export function isMounted(volumesInUse: readonly string[], uniqueName: UniqueVolumeName): boolean {
  return volumesInUse.includes(uniqueName);
}

/** Sorted by name, for comparing reported lists. */
export function sortAttachedVolumes(volumes: readonly AttachedVolume[]): AttachedVolume[] {
  return [...volumes].sort((a, b) => compareText(a.name, b.name) || compareText(a.devicePath, b.devicePath));
}
