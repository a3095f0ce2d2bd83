/**
 * The state one pass carries from planning through execution to reporting. `actual` is kept
 * current as writes succeed (and node lists by `nodeStatus`), so later steps decide on what is true now.
 */
import type { Action } from '../../core/actions.js';
import { volumeSpecName } from '../../core/events.js';
import type { DesiredAttachment, DesiredState, InstanceId, NodeName, Observations, ActualState, VolumeId } from '../../core/types.js';
import type { SeenInstance } from '../../ports/block-storage.js';
import type { Deadline } from './deadline.js';
import type { ModeReports } from './mode.js';
import type { NodeStatusUpdater } from '../controller/node-status.js';
import type { ReconcileDeps } from './types.js';

export interface PassContext {
  deps: ReconcileDeps;
  deadline: Deadline;
  desired: DesiredState;
  actual: ActualState;
  observations: Observations;
  /** Instances as this pass's verification saw them (block device mappings too) and when, for the attaches that follow. */
  seenInstances: Map<InstanceId, { instance: SeenInstance; at: number }>;
  /** The only writer of node status in this pass: owns what each node's list says and what left it. */
  nodeStatus: NodeStatusUpdater;
  /** PV name of each volume, for VolumeAttachment references. */
  pvNames: Map<VolumeId, string>;
  /** (volume, node) pairs (`pairKey`) whose attachment changed in this pass: their VolumeAttachment is brought in line. */
  touched: Set<string>;
  reportErrors: string[];
  /** What the operating mode writes to Kubernetes as the plan is carried out. */
  reports: ModeReports;
  /** The plan again for one volume, on its freshly read record (after a conflicting write). */
  replan(volumeId: VolumeId): Action[];
}

export function desiredAttachment(ctx: PassContext, volumeId: VolumeId, nodeName: NodeName): DesiredAttachment | undefined {
  return ctx.desired.attachments.find((a) => a.volumeId === volumeId && a.nodeName === nodeName);
}

/** The name the user wrote, as upstream's events name it: the PV, or the pod's inline volume; the EBS id when neither is known. */
export function specNameOf(ctx: PassContext, volumeId: VolumeId, nodeName: NodeName): string {
  const desired = desiredAttachment(ctx, volumeId, nodeName);
  return desired ? volumeSpecName(desired) : (ctx.pvNames.get(volumeId) ?? volumeId);
}

/** Runs a reporting side effect; a failure is written down, never thrown through the pass. */
export async function bestEffort(
  ctx: Pick<PassContext, 'deps' | 'reportErrors'>,
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
