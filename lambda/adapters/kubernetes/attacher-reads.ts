/**
 * What attacher mode reads: every page of VolumeAttachments, PVs, CSINodes and nodes for a full
 * pass (no pods or claims: kcm decided from those already), and single objects for a targeted one.
 */
import type { AttacherView } from '../../core/attacher/targets.js';
import type { KubeCsiNode, KubePv, KubeVolumeAttachment } from '../../core/kube.js';
import { toKubeCsiNode, toKubeNode, toKubePv, toKubeVolumeAttachment } from './mapping.js';
import { listAllPages, type PagingOptions } from './paged-list.js';
import { getOrUndefined, type ReadClients } from './reads.js';

export async function readAttacherView({ core, storage }: ReadClients, paging: PagingOptions): Promise<AttacherView> {
  const [volumeAttachments, pvs, csiNodes, nodes] = await Promise.all([
    listAllPages('volumeattachments', (page) => storage.listVolumeAttachment(page), paging),
    listAllPages('persistentvolumes', (page) => core.listPersistentVolume(page), paging),
    listAllPages('csinodes', (page) => storage.listCSINode(page), paging),
    listAllPages('nodes', (page) => core.listNode(page), paging),
  ]);
  return {
    volumeAttachments: volumeAttachments.map(toKubeVolumeAttachment),
    pvs: pvs.map(toKubePv),
    csiNodes: csiNodes.map(toKubeCsiNode),
    nodes: nodes.map(toKubeNode),
  };
}

export async function readVolumeAttachment({ storage }: ReadClients, name: string): Promise<KubeVolumeAttachment | undefined> {
  const va = await getOrUndefined(`volumeattachment ${name}`, () => storage.readVolumeAttachment({ name }));
  return va && toKubeVolumeAttachment(va);
}

export async function readCsiNode({ storage }: ReadClients, name: string): Promise<KubeCsiNode | undefined> {
  const csiNode = await getOrUndefined(`csinode ${name}`, () => storage.readCSINode({ name }));
  return csiNode && toKubeCsiNode(csiNode);
}

export async function readPv({ core }: ReadClients, name: string): Promise<KubePv | undefined> {
  const pv = await getOrUndefined(`persistentvolume ${name}`, () => core.readPersistentVolume({ name }));
  return pv && toKubePv(pv);
}
