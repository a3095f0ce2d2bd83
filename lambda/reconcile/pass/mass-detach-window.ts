/**
 * Before a pass detaches, it claims its guarded detaches in the shared mass-detach window
 * (core/mass-detach-window.ts); what the window does not grant is held back like the per-pass
 * guard's. A store failure grants nothing: the guard fails closed, the detaches wait for a later pass.
 */
import type { Plan } from '../../core/actions.js';
import { guardedDetaches, holdBackBeyond } from '../../core/mass-detach-window.js';
import type { PassContext } from './state.js';

export async function claimMassDetachWindow(ctx: PassContext, planned: Plan): Promise<Plan> {
  const { massDetachWindow: window, settings, log } = ctx.deps;
  const windowMs = settings.plan.massDetachWindowMs;
  const wanted = guardedDetaches(planned).length;
  if (!window || planned.massDetachLimit === undefined || wanted === 0) return planned;
  const granted = await window.claim({ wanted, limit: planned.massDetachLimit, windowMs }, ctx.deps.clock()).catch((error: unknown) => {
    log.error('mass-detach window unavailable: guarded detaches wait', { error: error instanceof Error ? error.message : String(error) });
    return 0;
  });
  const windowed = holdBackBeyond(planned, granted, windowMs);
  for (const held of windowed.heldBack.slice(planned.heldBack.length))
    log.warn('detach held back', { volumeId: held.action.volumeId, nodeName: held.action.nodeName, reason: held.reason });
  return windowed;
}
