/**
 * The operating mode (DESIGN §3a), chosen once in the composition root: what is desired (pods, or
 * kcm's VolumeAttachments) and what is reported (node status and our VolumeAttachments, or kcm's
 * VolumeAttachments' status and finalizers). Everything else, the store, locks, intents, backoff,
 * EC2 and verification, is the same code in both.
 */
import { runAttacherFullPass } from './attacher/full-pass.js';
import { runAttacherTargetedPass } from './attacher/targeted-pass.js';
import { runFullPass } from './controller/full-pass.js';
import { runTargetedPass } from './controller/targeted-pass.js';
import type { Budget, PassOptions, PassReport, ReconcileDeps, Target } from './pass/types.js';

export type ModeName = 'controller' | 'attacher';

export interface OperatingMode {
  name: ModeName;
  fullPass(deps: ReconcileDeps, budget: Budget, options?: PassOptions): Promise<PassReport>;
  targetedPass(deps: ReconcileDeps, target: Target, budget: Budget, options?: PassOptions): Promise<PassReport>;
}

const MODES: Record<ModeName, OperatingMode> = {
  controller: { name: 'controller', fullPass: runFullPass, targetedPass: runTargetedPass },
  attacher: { name: 'attacher', fullPass: runAttacherFullPass, targetedPass: runAttacherTargetedPass },
};

export function operatingMode(name: ModeName): OperatingMode {
  return MODES[name];
}
