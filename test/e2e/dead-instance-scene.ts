/**
 * The scene both out-of-service e2e files play: db-0 runs on node-1 with its volume attached and
 * mounted, then its instance dies and the StatefulSet places the replacement on node-2.
 */
import type { KubeNode } from '../../lambda/core/kube.js';
import type { RunningClock } from '../../sandbox/clock.js';
import { kubernetesEvent, lambdaContext, sqsBatch } from '../../sandbox/events.js';
import type { Handlers } from '../../sandbox/local-stack.js';
import type { World, WorldVolume } from '../../sandbox/world.js';

export interface Scene {
  world: World;
  clock: RunningClock;
  handlers: Handlers;
}

export const taintsOf = ({ world }: Scene, name: string) => (world.kube.get('Node', undefined, name) as KubeNode).spec?.taints ?? [];

/** db-0 on node-1 with its volume attached and mounted: the kubelet's last status before the instance dies. */
export async function mountedDb({ world, handlers }: Scene): Promise<WorldVolume> {
  const volume = await world.createVolume({ name: 'data-db-0' });
  world.addPod('db-0', volume, 'node-1');
  await handlers.scheduled({ pass: 'full' }, lambdaContext());
  world.kube.kubelet.setVolumesInUse('node-1', [volume.uniqueName]);
  return volume;
}

/** db-0 is evicted from node-1 and its replacement scheduled on node-2: the replacement's own pass runs. */
export function replacementScheduled({ world, clock, handlers }: Scene, volume: WorldVolume) {
  world.kube.kubelet.deletePod('default', 'db-0');
  world.addPod('db-0', volume, 'node-2');
  const scheduled = kubernetesEvent({ kind: 'Pod', namespace: 'default', name: 'db-0' }, 'Scheduled', 'assigned to node-2', clock.now());
  return handlers.clusterEvent(sqsBatch([scheduled]), lambdaContext());
}
