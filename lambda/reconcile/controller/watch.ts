/**
 * Controller mode's side of the watcher: pods and nodes (core/watch-changes.ts). A pod bound to a
 * node is the earliest signal of an attach; its node's `volumesInUse` losing a volume is the
 * earliest signal that a detach may go ahead; a pod ending or a node going NotReady, out of
 * service or away starts what the node's pass decides. VolumeAttachments are not watched here:
 * in this mode they are ours, written by our passes, so their changes would only echo our writes.
 */
import type { KubeNode, KubePod } from '../../core/kube.js';
import { nodeAsks, podAsks } from '../../core/watch-changes.js';
import type { Target } from '../pass/types.js';
import type { WatchMode } from '../watch/types.js';

function podTarget(pod: KubePod, asks: NonNullable<ReturnType<typeof podAsks>>): Target | undefined {
  const { namespace, name } = pod.metadata;
  if (asks.pass === 'node') return { kind: 'node', name: asks.nodeName };
  return namespace && name ? { kind: 'pod', namespace, name, nodeHint: asks.nodeName } : undefined;
}

export const controllerWatch: WatchMode = {
  kinds: ['pods', 'nodes'],
  targetOf(kind, change, object) {
    if (kind === 'nodes') {
      const name = object.metadata.name;
      return name && nodeAsks(change, object as KubeNode) ? { kind: 'node', name } : undefined;
    }
    const pod = object as KubePod;
    const asks = podAsks(change, pod);
    return asks === undefined ? undefined : podTarget(pod, asks);
  },
};
