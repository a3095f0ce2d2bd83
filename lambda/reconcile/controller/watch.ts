/**
 * Controller mode's side of the watcher: pods and nodes (core/watch-changes.ts). A pod bound to a
 * node is the earliest signal of an attach; its node's `volumesInUse` losing a volume is the
 * earliest signal that a detach may go ahead; a pod ending or a node going NotReady, out of
 * service or away starts what the node's pass decides. VolumeAttachments are not watched here:
 * in this mode they are ours, written by our passes, so their changes would only echo our writes.
 */
import type { KubeNode, KubePod } from '../../core/kube.js';
import { nodeAsks, podAsks } from '../../core/watch-changes.js';
import type { ChangeTarget, WatchMode } from '../watch/types.js';

/** A pod's own target; a settled pod answers the changes its pass still owed. */
function podTarget(pod: KubePod, asks: ReturnType<typeof podAsks>): ChangeTarget | undefined {
  const { namespace, name } = pod.metadata;
  if (asks?.pass === 'node') return { target: { kind: 'node', name: asks.nodeName }, acts: true };
  if (!namespace || !name) return undefined;
  const nodeHint = asks?.nodeName ?? pod.spec?.nodeName;
  return { target: { kind: 'pod', namespace, name, ...(nodeHint ? { nodeHint } : {}) }, acts: asks !== undefined };
}

export const controllerWatch: WatchMode = {
  kinds: ['pods', 'nodes'],
  targetOf(kind, change, object) {
    if (kind === 'nodes') {
      const name = object.metadata.name;
      return name ? { target: { kind: 'node', name }, acts: nodeAsks(change, object as KubeNode) } : undefined;
    }
    const pod = object as KubePod;
    return podTarget(pod, podAsks(change, pod));
  },
};
