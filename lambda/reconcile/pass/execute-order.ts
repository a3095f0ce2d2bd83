/**
 * The order volumes enter the executor's concurrency limit. When EC2's mutating budget is the
 * bottleneck, the first volumes in line take the first tokens, so a volume a pending pod waits
 * for on another node (a handoff: detach here, attach there) goes before new attaches and
 * plain detaches; otherwise plan order. Within a volume the plan's order stands (detach first).
 */
import type { AttachAction, DetachAction } from '../../core/actions.js';
import type { VolumeId } from '../../core/types.js';

export type VolumeActions = (AttachAction | DetachAction)[];

/** A detach that frees the volume for a pod waiting on another node. */
export function isHandoff(actions: VolumeActions): boolean {
  const detached = actions.filter((a) => a.kind === 'detach').map((a) => a.nodeName);
  return actions.some((a) => a.kind === 'attach' && detached.some((node) => node !== a.nodeName));
}

/** Each volume's actions in plan order, the volumes in the order they should start. */
export function volumesInPriority(actions: VolumeActions): VolumeActions[] {
  const groups = new Map<VolumeId, VolumeActions>();
  for (const action of actions) groups.set(action.volumeId, [...(groups.get(action.volumeId) ?? []), action]);
  const all = [...groups.values()];
  return [...all.filter(isHandoff), ...all.filter((group) => !isHandoff(group))];
}
