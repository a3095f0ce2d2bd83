/**
 * The operating mode (DESIGN §3a), chosen once in the composition root, as external-attacher's main
 * picks its Handler: what is desired (pods, or kcm's VolumeAttachments) and what is reported (node
 * status and our VolumeAttachments, or kcm's VolumeAttachments' status and finalizers). The only
 * file that knows both modes; everything else, the store, locks, intents, backoff, EC2 and
 * verification, is the shared pass (pass/), which knows neither.
 */
import type { Cluster } from '../ports/cluster.js';
import type { SidecarLeaseReader } from './attacher/deps.js';
import { runAttacherFullPass } from './attacher/full-pass.js';
import { runAttacherTargetedPass } from './attacher/targeted-pass.js';
import { attacherWatch } from './attacher/watch.js';
import { runFullPass } from './controller/full-pass.js';
import { runTargetedPass } from './controller/targeted-pass.js';
import { controllerWatch } from './controller/watch.js';
import type { Budget, PassOptions, PassReport, ReconcileDeps, Target } from './pass/types.js';
import type { WatchMode } from './watch/types.js';

export type ModeName = 'controller' | 'attacher';

/** A pass's dependencies as the composition root builds them: one adapter serves every role of the Cluster port. */
export type ModeDeps = ReconcileDeps & { cluster: Cluster; leaseCheck?: SidecarLeaseReader };

export interface OperatingMode {
  name: ModeName;
  fullPass(deps: ModeDeps, budget: Budget, options?: PassOptions): Promise<PassReport>;
  targetedPass(deps: ModeDeps, target: Target, budget: Budget, options?: PassOptions): Promise<PassReport>;
  /** What the watcher follows and which targeted pass each change asks for. */
  watch: WatchMode;
}

const MODES: Record<ModeName, OperatingMode> = {
  controller: { name: 'controller', fullPass: runFullPass, targetedPass: runTargetedPass, watch: controllerWatch },
  attacher: { name: 'attacher', fullPass: runAttacherFullPass, targetedPass: runAttacherTargetedPass, watch: attacherWatch },
};

export function operatingMode(name: ModeName): OperatingMode {
  return MODES[name];
}
