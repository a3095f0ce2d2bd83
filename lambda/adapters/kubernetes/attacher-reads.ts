/**
 * What attacher mode reads: every page of VolumeAttachments, PVs, CSINodes and nodes for a full
 * pass (no pods or claims: kcm decided from those already), and single objects for a targeted one.
 */
import type { AttacherView } from '../../core/attacher/targets.js';
import type { KubeCsiNode, KubePv, KubeVolumeAttachment } from '../../core/kube.js';
import { csiNodeFromJson, pvFromJson, volumeAttachmentFromJson } from './json-mapping.js';
import { listAllPages, type PagingOptions } from './paged-list.js';
import { getOrUndefined, jsonPages, listNodes, PATHS, type ReadClients } from './reads.js';

const segment = encodeURIComponent;

/** Every page of VolumeAttachments alone (a dead instance's follow-through looks for the replacements). */
export function listVolumeAttachments({ getJson }: ReadClients, paging: PagingOptions): Promise<KubeVolumeAttachment[]> {
  return listAllPages('volumeattachments', jsonPages(getJson, PATHS.volumeattachments, volumeAttachmentFromJson), paging);
}

export async function readAttacherView(clients: ReadClients, paging: PagingOptions): Promise<AttacherView> {
  const [volumeAttachments, pvs, csiNodes, nodes] = await Promise.all([
    listVolumeAttachments(clients, paging),
    listAllPages('persistentvolumes', jsonPages(clients.getJson, PATHS.persistentvolumes, pvFromJson), paging),
    listAllPages('csinodes', jsonPages(clients.getJson, PATHS.csinodes, csiNodeFromJson), paging),
    listNodes(clients, paging),
  ]);
  return { volumeAttachments, pvs, csiNodes, nodes };
}

async function readOne<T>(getJson: ReadClients['getJson'], what: string, path: string, map: (item: unknown) => T): Promise<T | undefined> {
  const item = await getOrUndefined(what, () => getJson(path));
  return item === undefined ? undefined : map(item);
}

export function readVolumeAttachment({ getJson }: ReadClients, name: string): Promise<KubeVolumeAttachment | undefined> {
  return readOne(getJson, `volumeattachment ${name}`, `${PATHS.volumeattachments}/${segment(name)}`, volumeAttachmentFromJson);
}

export function readCsiNode({ getJson }: ReadClients, name: string): Promise<KubeCsiNode | undefined> {
  return readOne(getJson, `csinode ${name}`, `${PATHS.csinodes}/${segment(name)}`, csiNodeFromJson);
}

export function readPv({ getJson }: ReadClients, name: string): Promise<KubePv | undefined> {
  return readOne(getJson, `persistentvolume ${name}`, `${PATHS.persistentvolumes}/${segment(name)}`, pvFromJson);
}
