/** Attacher-mode worlds: kcm's VolumeAttachments, the PVs they name, CSINodes and nodes. */
import { ATTACHER_FINALIZER, NODE_ID_ANNOTATION } from '../../../lambda/core/attacher/names.js';
import type { AttacherView } from '../../../lambda/core/attacher/targets.js';
import type { KubeCsiNode, KubeVolumeAttachment } from '../../../lambda/core/kube.js';
import { EBS_CSI_DRIVER } from '../../../lambda/core/types.js';
import { instanceOf, node, pv, T0, va, type VaOptions } from '../builders.js';

export function csiNode(name: string, nodeID: string | null = instanceOf(name)): KubeCsiNode {
  return { metadata: { name }, spec: { drivers: nodeID === null ? [] : [{ name: EBS_CSI_DRIVER, nodeID }] } };
}

/** A VolumeAttachment kcm made, with our marks when `claimed`, and being deleted when `deleting`. */
export function kcmVa(
  nodeName: string,
  o: VaOptions & { claimed?: boolean; deleting?: boolean; annotated?: string; attachError?: string } = {},
): KubeVolumeAttachment {
  const base = va(nodeName, o.pv === undefined && o.inline === undefined ? { ...o, pv: 'pv-data' } : o);
  const annotation = o.annotated ?? (o.claimed ? instanceOf(nodeName) : undefined);
  return {
    ...base,
    metadata: {
      ...base.metadata,
      uid: `uid-${base.metadata.name ?? ''}`,
      ...(o.claimed ? { finalizers: [ATTACHER_FINALIZER] } : {}),
      ...(annotation === undefined ? {} : { annotations: { [NODE_ID_ANNOTATION]: annotation } }),
      ...(o.deleting ? { deletionTimestamp: new Date(T0).toISOString() } : {}),
    },
    ...(o.attachError === undefined ? {} : { status: { attached: false, attachError: { message: o.attachError } } }),
  };
}

export function view(parts: Partial<AttacherView> = {}): AttacherView {
  return {
    volumeAttachments: parts.volumeAttachments ?? [kcmVa('node-a')],
    pvs: parts.pvs ?? [pv('pv-data')],
    csiNodes: parts.csiNodes ?? [csiNode('node-a'), csiNode('node-b')],
    nodes: parts.nodes ?? [node('node-a'), node('node-b')],
  };
}
