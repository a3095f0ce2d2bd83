/**
 * The only writer of `node.status.volumesAttached` (upstream's statusupdater). The list is
 * atomic, so a write replaces it whole: read the node, apply the caller's change to the
 * live list, and PATCH nodes/status with the resourceVersion read. On 409 (someone wrote
 * in between) re-read and re-apply, a bounded number of times.
 *
 * Timeline the guard prevents: passes A and B read the node at v1; A adds `a`, writes v2;
 * B adds `b` and, unguarded, would write [b] and erase `a`. Guarded, B's write fails on v1,
 * B re-reads [a] and writes [a, b].
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import type { AttachedVolume } from '../../core/kube.js';
import type { SetVolumesAttachedOptions } from '../../ports/cluster.js';
import { describeApiError, isConflict, isNotFound } from './api-errors.js';
import { mergePatch } from './merge-patch.js';
import { getOrUndefined } from './reads.js';

export type NodeStatusResult = 'updated' | 'unchanged' | 'node-gone';

/** What the caller changes: entries to set (new or with a new device path) and names to drop. */
export interface VolumesAttachedChange {
  set: AttachedVolume[];
  remove: string[];
}

/** One entry per unique volume name; the same name with two device paths is a caller bug. */
export function uniqueByName(volumes: AttachedVolume[]): AttachedVolume[] {
  const byName = new Map<string, AttachedVolume>();
  for (const volume of volumes) {
    const seen = byName.get(volume.name);
    if (seen !== undefined && seen.devicePath !== volume.devicePath) {
      throw new Error(`volumesAttached lists ${volume.name} twice with different device paths (${seen.devicePath}, ${volume.devicePath})`);
    }
    byName.set(volume.name, { name: volume.name, devicePath: volume.devicePath });
  }
  return [...byName.values()];
}

export function changeFrom(base: AttachedVolume[], wanted: AttachedVolume[]): VolumesAttachedChange {
  const before = new Map(base.map((v) => [v.name, v.devicePath]));
  const after = new Set(wanted.map((v) => v.name));
  return {
    set: wanted.filter((v) => before.get(v.name) !== v.devicePath),
    remove: [...before.keys()].filter((name) => !after.has(name)),
  };
}

export function applyChange(live: AttachedVolume[], change: VolumesAttachedChange): AttachedVolume[] {
  const dropped = new Set([...change.remove, ...change.set.map((v) => v.name)]);
  return [...live.filter((v) => !dropped.has(v.name)), ...change.set];
}

export function sameVolumes(a: AttachedVolume[], b: AttachedVolume[]): boolean {
  const left = new Map(a.map((v) => [v.name, v.devicePath]));
  return a.length === b.length && left.size === b.length && b.every((v) => left.get(v.name) === v.devicePath);
}

export async function setVolumesAttached(
  core: CoreV1Api,
  nodeName: string,
  volumes: AttachedVolume[],
  options: SetVolumesAttachedOptions & { maxConflictRetries: number },
): Promise<NodeStatusResult> {
  const wanted = uniqueByName(volumes);
  let change = options.base === undefined ? undefined : changeFrom(uniqueByName(options.base), wanted);
  for (let attempt = 0; attempt <= options.maxConflictRetries; attempt++) {
    const node = await getOrUndefined(`node ${nodeName}`, () => core.readNode({ name: nodeName }));
    if (node === undefined) return 'node-gone';
    // What the node holds is not ours to reject: on a repeated name the last entry counts.
    const live = [
      ...new Map((node.status?.volumesAttached ?? []).map((v) => [v.name, { name: v.name, devicePath: v.devicePath }])).values(),
    ];
    change ??= changeFrom(live, wanted);
    const next = applyChange(live, change);
    if (sameVolumes(live, next)) return 'unchanged';
    const body = { metadata: { resourceVersion: node.metadata?.resourceVersion }, status: { volumesAttached: next } };
    try {
      await core.patchNodeStatus({ name: nodeName, body }, mergePatch);
      return 'updated';
    } catch (error) {
      if (isNotFound(error)) return 'node-gone';
      if (!isConflict(error)) throw new Error(`patching nodes/${nodeName}/status failed: ${describeApiError(error)}`, { cause: error });
    }
  }
  throw new Error(`patching nodes/${nodeName}/status: still conflicting after ${options.maxConflictRetries + 1} attempts`);
}
