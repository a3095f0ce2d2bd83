/** Small readers over cluster objects the pass needs beside the desired state (no I/O). */
import type { ClusterSnapshot, KubePv } from '../core/kube.js';
import { EBS_CSI_DRIVER, type VolumeId } from '../core/types.js';
import { parseVolumeId, volumeIdOf } from '../core/volume-id.js';

export const EMPTY_SNAPSHOT: ClusterSnapshot = { nodes: [], pods: [], pvcs: [], pvs: [], volumeAttachments: [], csiNodes: [] };

/** The EBS volume a PV holds (CSI or in-tree), if any. */
export function volumeOfPv(pv: KubePv): VolumeId | undefined {
  const csi = pv.spec?.csi;
  const raw = csi?.driver === EBS_CSI_DRIVER ? csi.volumeHandle : pv.spec?.awsElasticBlockStore?.volumeID;
  if (raw === undefined) return undefined;
  const parsed = parseVolumeId(raw);
  return parsed.ok ? parsed.volumeId : undefined;
}

/** Volume → PV name, for VolumeAttachment references. */
export function pvNamesOf(pvs: KubePv[]): Map<VolumeId, string> {
  const names = new Map<VolumeId, string>();
  for (const pv of pvs) {
    const volumeId = volumeOfPv(pv);
    if (volumeId !== undefined && pv.metadata.name !== undefined) names.set(volumeId, pv.metadata.name);
  }
  return names;
}

const IN_TREE_PREFIX = 'kubernetes.io/aws-ebs/';

/** The volume in a node's `volumesAttached`/`volumesInUse` name: CSI unique name or the in-tree form. */
export function volumeOfUniqueName(name: string): VolumeId | undefined {
  if (name.startsWith(IN_TREE_PREFIX)) {
    const parsed = parseVolumeId(name.slice(IN_TREE_PREFIX.length));
    return parsed.ok ? parsed.volumeId : undefined;
  }
  return volumeIdOf(name);
}

/** Merges object lists, keeping the first object of each key (uid, else namespace/name). */
export function mergeSnapshots(parts: Partial<ClusterSnapshot>[]): ClusterSnapshot {
  const merged: ClusterSnapshot = { nodes: [], pods: [], pvcs: [], pvs: [], volumeAttachments: [], csiNodes: [] };
  for (const key of Object.keys(merged) as (keyof ClusterSnapshot)[]) {
    const seen = new Set<string>();
    for (const part of parts) {
      for (const object of part[key] ?? []) {
        const id = object.metadata.uid ?? `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
        if (seen.has(id)) continue;
        seen.add(id);
        (merged[key] as object[]).push(object);
      }
    }
  }
  return merged;
}
