/**
 * Guards that keep a pass from doing harm on partial knowledge (DESIGN §4, §11 invariant 3).
 *
 * Scope of a targeted pass: `scope.volumes` are volumes whose actual state was loaded;
 * `scope.nodes` are nodes whose every pod was loaded. Attaches, conflicts and resolves need either.
 * A detach needs the node: only the complete list of a node's pods proves a volume unneeded there.
 */
import type { DetachAction, HeldBack } from './actions.js';
import type { PlanConfig } from './config.js';
import { MASS_DETACH_GUARD } from './reasons.js';
import type { DesiredState, NodeName, VolumeId } from './types.js';

export function inScope(desired: DesiredState, volumeId: VolumeId, nodeName: NodeName): boolean {
  const scope = desired.scope;
  return !scope || scope.volumes.includes(volumeId) || scope.nodes.includes(nodeName);
}

export const INCOMPLETE_INPUT = 'the cluster read was incomplete: a pass that cannot see every pod detaches nothing';

/** Whether every pod of the node was read, so an unneeded attachment there is known to be unneeded. */
export function nodeInDetachScope(desired: DesiredState, nodeName: NodeName): boolean {
  return !desired.scope || desired.scope.nodes.includes(nodeName);
}

/**
 * Detaches the guard never holds back: EC2 already freed a terminated instance's volumes or no OS
 * can use them (stopped), a stuck attach was never usable, and kcm released it (attacher mode). None is
 * evidence of a bad desired state.
 */
export function exemptFromMassGuard(action: DetachAction): boolean {
  // A released detach is kcm's explicit decision (it deleted the VolumeAttachment), not an absence read as "unneeded".
  const exempt: DetachAction['trigger'][] = ['instance-stopped', 'instance-terminated', 'stuck-attach', 'released'];
  return exempt.includes(action.trigger);
}

/**
 * The mass-detach guard: when more than `minAttached` volumes are attached, one pass detaches at
 * most `maxFraction` of them; the rest are held back (reported) in plan order. Exempt detaches
 * neither count nor get held back.
 */
/** Guarded detaches allowed per pass (and per window, mass-detach-window.ts); undefined when the guard does not apply. */
export function massDetachLimit(attachedCount: number, config: PlanConfig['massDetachGuard']): number | undefined {
  if (!config || attachedCount <= config.minAttached) return undefined;
  return Math.floor(config.maxFraction * attachedCount);
}

export function massDetachGuard(
  detaches: DetachAction[],
  attachedCount: number,
  config: PlanConfig['massDetachGuard'],
): { kept: DetachAction[]; heldBack: HeldBack[] } {
  const allowed = massDetachLimit(attachedCount, config);
  if (allowed === undefined) return { kept: detaches, heldBack: [] };
  const guarded = detaches.filter((d) => !exemptFromMassGuard(d)).length;
  const kept: DetachAction[] = [];
  const heldBack: HeldBack[] = [];
  let used = 0;
  for (const action of detaches) {
    if (exemptFromMassGuard(action) || used < allowed) {
      if (!exemptFromMassGuard(action)) used++;
      kept.push(action);
      continue;
    }
    heldBack.push({
      action,
      code: MASS_DETACH_GUARD,
      reason: `mass-detach guard: ${guarded} of ${attachedCount} attached volumes would be detached; at most ${allowed} per pass`,
    });
  }
  return { kept, heldBack };
}
