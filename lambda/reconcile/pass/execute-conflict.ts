/** A Multi-Attach error: nothing is attached; each pod that wants the volume is told why. */
import type { MultiAttachConflictAction } from '../../core/actions.js';
import { bestEffort, type PassContext } from './context.js';
import type { ActionResult } from './types.js';

export async function executeConflict(ctx: PassContext, action: MultiAttachConflictAction): Promise<ActionResult> {
  // Upstream words the message per pod (pods of other namespaces are counted, not named).
  const perPod = action.podEvents ?? action.pods.map((pod) => ({ pod, message: action.event.message }));
  for (const { pod, message } of perPod) {
    const event = { ...action.event, message };
    await bestEffort(ctx, `Multi-Attach event on ${pod.namespace}/${pod.name}`, () => ctx.deps.cluster.recordEvent(pod, event));
  }
  return {
    kind: 'multiAttachConflict',
    volumeId: action.volumeId,
    nodeName: action.nodeName,
    outcome: 'ok',
    detail: `exclusive volume attached to ${action.attachedTo.join(', ')}: ${action.event.message}`,
  };
}
