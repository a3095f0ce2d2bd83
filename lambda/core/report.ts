/**
 * What each node's `status.volumesAttached` should say (DESIGN §6, invariant 5): exactly the
 * volumes in state `attached` to the node's own instance, as `{name: uniqueName, devicePath}`,
 * sorted by name. A targeted pass knows only some volumes, so for it entries of volumes it did not
 * load are kept as the node reports them; a full pass owns the whole list.
 */
import type { AttachedVolume } from './kube.js';
import { sortAttachedVolumes } from './nodes.js';
import type { ActualState, DesiredState, NodeName, NodeView } from './types.js';

export interface NodeReport {
  want: AttachedVolume[];
  /** The node object currently reports something else. */
  changed: boolean;
}

/** Every `attached` entry by node, in one walk over the actual state (not one walk per node). */
function attachedByNode(actual: ActualState): Map<NodeName, { entry: AttachedVolume; instanceId: string }[]> {
  const index = new Map<NodeName, { entry: AttachedVolume; instanceId: string }[]>();
  for (const record of actual.values()) {
    for (const attachment of Object.values(record.attachments)) {
      if (attachment.state !== 'attached') continue;
      const list = index.get(attachment.nodeName) ?? [];
      list.push({ entry: { name: record.uniqueName, devicePath: attachment.device ?? '' }, instanceId: attachment.instanceId });
      index.set(attachment.nodeName, list);
    }
  }
  return index;
}

function attachedTo(node: NodeView, index: ReturnType<typeof attachedByNode>): AttachedVolume[] {
  // An entry of a previous instance under the same node name is not this node's.
  return (index.get(node.name) ?? []).filter((a) => !node.instanceId || a.instanceId === node.instanceId).map((a) => a.entry);
}

function sameList(a: AttachedVolume[], b: AttachedVolume[]): boolean {
  return a.length === b.length && a.every((entry, i) => entry.name === b[i]!.name && entry.devicePath === b[i]!.devicePath);
}

/** The list every managed node should carry, and whether it differs from what it reports now. */
export function nodeReports(desired: DesiredState, actual: ActualState): Map<NodeName, NodeReport> {
  const known = new Set([...actual.values()].map((record) => record.uniqueName));
  const attached = attachedByNode(actual);
  const reports = new Map<NodeName, NodeReport>();
  for (const node of desired.nodes.values()) {
    if (!node.managed) continue;
    const kept = desired.scope ? node.volumesAttached.filter((entry) => !known.has(entry.name)) : [];
    const want = sortAttachedVolumes([...attachedTo(node, attached), ...kept]);
    reports.set(node.name, { want, changed: !sameList(want, sortAttachedVolumes(node.volumesAttached)) });
  }
  return reports;
}
