/** Making a pass's context (state.ts), and the small helpers every step of a pass uses. */
import type { Action } from '../../core/actions.js';
import { plan } from '../../core/plan.js';
import type { ActualState, DesiredAttachment, DesiredState, NodeName, VolumeId } from '../../core/types.js';
import { Deadline } from './deadline.js';
import type { ModeFor, PassContext, PassState } from './state.js';
import type { Budget, ReconcileDeps } from './types.js';

export function createPassContext(
  deps: ReconcileDeps,
  budget: Budget,
  inputs: { desired: DesiredState; actual: ActualState },
  modeFor: ModeFor,
): PassContext {
  const state: PassState = {
    deps,
    deadline: new Deadline(budget, deps.clock, deps.settings.reserveMs),
    desired: inputs.desired,
    actual: inputs.actual,
    observations: {},
    seenInstances: new Map(),
    reportErrors: [],
  };
  const ctx: PassContext = Object.assign(state, {
    mode: modeFor(state),
    replan: (volumeId: VolumeId) => replanVolume(ctx, volumeId),
  });
  return ctx;
}

/** The plan for one volume on the records as they are now (after a conflicting write). */
function replanVolume(ctx: PassContext, volumeId: VolumeId): Action[] {
  const record = ctx.actual.get(volumeId);
  const actual: ActualState = new Map(record === undefined ? [] : [[volumeId, record]]);
  // A full pass may detach from any node (gone ones too); a targeted pass only from the nodes it read.
  const nodes = ctx.desired.scope?.nodes ?? [...new Set([...ctx.desired.nodes.keys(), ...Object.keys(record?.attachments ?? {})])];
  const desired: DesiredState = { ...ctx.desired, scope: { volumes: [volumeId], nodes } };
  return plan(desired, actual, ctx.observations, ctx.deps.clock(), ctx.deps.settings.plan).actions.filter((a) => a.volumeId === volumeId);
}

export function desiredAttachment(ctx: Pick<PassState, 'desired'>, volumeId: VolumeId, nodeName: NodeName): DesiredAttachment | undefined {
  return ctx.desired.attachments.find((a) => a.volumeId === volumeId && a.nodeName === nodeName);
}

/** Runs a reporting side effect; a failure is written down, never thrown through the pass. */
export async function bestEffort(
  ctx: Pick<PassState, 'deps' | 'reportErrors'>,
  what: string,
  effect: () => Promise<unknown>,
): Promise<void> {
  try {
    await effect();
  } catch (error) {
    const message = `${what}: ${error instanceof Error ? error.message : String(error)}`;
    ctx.reportErrors.push(message);
    ctx.deps.log.warn('report step failed', { step: what, error: message });
  }
}
