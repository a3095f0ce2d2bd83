/**
 * Attacher mode's side of the watcher: kcm's VolumeAttachments are the whole desired state, and a
 * change to one is the earliest signal of both an attach (kcm created it) and a detach (kcm is
 * deleting it; kcm waited for the unmount first). Each change that external-attacher would act on
 * asks for that object's targeted pass. PV finalizers and VolumeAttachments waiting for their
 * node's CSINode are the full pass's, within a minute, as before.
 *
 * The PVs, CSINodes and Nodes an attach names are held as csi-attacher's informers hold them
 * (watch/cache.ts), so a VolumeAttachment's attach reads nothing from the API server on its way to
 * EC2 (a name the cache lacks is read live). A detach never starts from the caches: it reads what
 * it needs as before, so a cache that lags (a CSINode of a node recreated under the same name, a
 * PV's finalizers) can at worst slow an attach down, which EC2's own checks and the guarded
 * patches then catch, never point a DetachVolume at the wrong instance.
 */
import { volumeAttachmentAsks } from '../../core/attacher/watch.js';
import type { KubeCsiNode, KubeNode, KubePv, KubeVolumeAttachment } from '../../core/kube.js';
import type { WatchedKind } from '../../core/watch.js';
import type { Target } from '../pass/types.js';
import type { WatchCache } from '../watch/cache.js';
import type { WatchMode } from '../watch/types.js';

/** The objects a VolumeAttachment's attach names, by name. */
const NAMED: readonly WatchedKind[] = ['persistentvolumes', 'csinodes', 'nodes'];

const held = <T>(cache: WatchCache, kind: WatchedKind, name: string | null | undefined): T[] => {
  const object = name ? cache.get(kind, name) : undefined;
  return object === undefined ? [] : [object as T];
};

/** The target with what the caches hold of its PV, CSINode and Node; a detach's target as it came. */
export function withCachedObjects(target: Target, cache: WatchCache): Target {
  const va = target.kind === 'volumeAttachment' ? target.seen : undefined;
  if (target.kind !== 'volumeAttachment' || va === undefined || va.metadata.deletionTimestamp) return target;
  const node = va.spec.nodeName;
  return {
    ...target,
    known: {
      pvs: held<KubePv>(cache, 'persistentvolumes', va.spec.source.persistentVolumeName),
      csiNodes: held<KubeCsiNode>(cache, 'csinodes', node),
      nodes: held<KubeNode>(cache, 'nodes', node),
    },
  };
}

export const attacherWatch: WatchMode = {
  kinds: ['volumeattachments'],
  cached: NAMED,
  targetOf(_kind, change, object) {
    const va = object as KubeVolumeAttachment;
    const name = va.metadata.name;
    return name
      ? { target: { kind: 'volumeAttachment', name, seen: va }, acts: volumeAttachmentAsks(change, va) !== undefined }
      : undefined;
  },
  withCache: withCachedObjects,
};
