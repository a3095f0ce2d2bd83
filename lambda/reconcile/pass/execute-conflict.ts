/** A Multi-Attach error: nothing is attached; the mode tells whoever waits for the volume why. */
import type { MultiAttachConflictAction } from '../../core/actions.js';
import type { PassContext } from './state.js';
import type { ActionResult } from './types.js';

export async function executeConflict(ctx: PassContext, action: MultiAttachConflictAction): Promise<ActionResult> {
  await ctx.mode.conflict(ctx, action);
  return {
    kind: 'multiAttachConflict',
    volumeId: action.volumeId,
    nodeName: action.nodeName,
    outcome: 'ok',
    detail: `exclusive volume attached to ${action.attachedTo.join(', ')}: ${action.event.message}`,
  };
}
