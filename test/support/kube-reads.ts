/** Typed reads of the kube sandbox's objects for assertions. */
import type { AttachedVolume, KubeNode, KubeVolumeAttachment } from '../../lambda/core/kube.js';
import type { World } from '../../sandbox/world.js';

export function reportedOn(world: World, nodeName: string): AttachedVolume[] {
  const node = world.kube.get('Node', undefined, nodeName) as KubeNode | undefined;
  return node?.status?.volumesAttached ?? [];
}

export function volumeAttachments(world: World): KubeVolumeAttachment[] {
  return world.kube.list('VolumeAttachment') as KubeVolumeAttachment[];
}

export function eventReasons(world: World, namespace = 'default'): string[] {
  return (world.kube.list('Event', namespace) as { reason: string }[]).map((e) => e.reason);
}
