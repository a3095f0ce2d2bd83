/** Cluster snapshots a pass assembles: the empty one, and one merged from targeted reads (no I/O). */
import type { ClusterSnapshot } from '../../core/kube.js';

export const EMPTY_SNAPSHOT: ClusterSnapshot = { nodes: [], pods: [], pvcs: [], pvs: [], volumeAttachments: [] };

/** Merges object lists, keeping the first object of each key (uid, else namespace/name). */
export function mergeSnapshots(parts: Partial<ClusterSnapshot>[]): ClusterSnapshot {
  const merged: ClusterSnapshot = { nodes: [], pods: [], pvcs: [], pvs: [], volumeAttachments: [] };
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
