/**
 * The desired state in attacher mode: kcm's live VolumeAttachments, each a (volume, node) that must
 * be attached; the ones it is deleting, while they carry our finalizer, are `released` (detach them
 * now: kcm already waited for the unmount). Attachments no object mentions are left alone. The
 * plan, the store, the locks and the executor then work exactly as in controller mode.
 */
import { allowsMultiAttach } from '../access-modes.js';
import { compareText } from '../compare.js';
import { buildNodeViews } from '../nodes.js';
import { type DesiredAttachment, type DesiredState, type InstanceId, type NodeName, pairKey } from '../types.js';
import { uniqueNameFor } from '../volume-id.js';
import type { AttacherView, VaTarget } from './targets.js';

function desiredOf(target: VaTarget): DesiredAttachment | undefined {
  if (target.deleting || target.volumeId === undefined || target.instanceId === undefined || target.error !== undefined) return undefined;
  return {
    volumeId: target.volumeId,
    uniqueName: uniqueNameFor(target.volumeId),
    nodeName: target.nodeName,
    instanceId: target.instanceId,
    pods: [],
    accessModes: target.accessModes,
    multiAttach: allowsMultiAttach(target.accessModes),
    source: target.pvName === undefined ? { kind: 'inline', podVolumeName: target.name } : { kind: 'pv', pvName: target.pvName },
    volumeAttachment: target.name,
  };
}

/** A released object's instance when its Node object is gone: nothing else names it any more. */
function instancesOfGoneNodes(targets: readonly VaTarget[], nodes: DesiredState['nodes']): Map<InstanceId, NodeName> {
  const gone = targets.filter((t) => t.deleting && t.finalized && t.instanceId !== undefined && !nodes.has(t.nodeName));
  return new Map(gone.map((t) => [t.instanceId!, t.nodeName]));
}

/**
 * `complete`: every list was read in full. `scope`: a targeted pass knows only these volumes and
 * nodes (it detaches nothing it did not read).
 */
export function attacherDesiredState(
  view: Pick<AttacherView, 'nodes'>,
  targets: readonly VaTarget[],
  options: { complete: boolean; scope?: DesiredState['scope'] },
): DesiredState {
  const attachments = targets.flatMap((t) => desiredOf(t) ?? []);
  attachments.sort((a, b) => compareText(a.volumeId, b.volumeId) || compareText(a.nodeName, b.nodeName));
  const released = new Set(
    targets.filter((t) => t.deleting && t.finalized && t.volumeId !== undefined).map((t) => pairKey(t.volumeId!, t.nodeName)),
  );
  const { nodes, problems } = buildNodeViews(view.nodes);
  const releasedInstances = instancesOfGoneNodes(targets, nodes);
  const invalid = targets.flatMap((t) => (t.error === undefined ? [] : [`VolumeAttachment ${t.name}: ${t.error}`]));
  return {
    attachments,
    nodes,
    skipped: [],
    problems: [...problems, ...invalid],
    complete: options.complete,
    decidedBy: { kind: 'kcm', released, ...(releasedInstances.size === 0 ? {} : { releasedInstances }) },
    ...(options.scope === undefined ? {} : { scope: options.scope }),
  };
}
