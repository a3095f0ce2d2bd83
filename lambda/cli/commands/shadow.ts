/**
 * `shadow`: the step before taking over from the csi-attacher sidecar (issue #12). One dry-run
 * attacher pass — nothing written, the sidecar's Lease untouched — and the table of what the
 * sidecar reported on each VolumeAttachment beside what EC2 says and what we would do next.
 */
import type { Controller } from '../../composition.js';
import { formatShadow } from '../format.js';
import type { Io } from '../io.js';
import { EXIT } from './exit.js';
import { CLI_BUDGET_MS } from './pass.js';

export async function runShadow(controller: Controller, options: { json: boolean }, io: Io): Promise<number> {
  if (controller.config.mode !== 'attacher') {
    io.err('shadow compares the work of the EBS CSI csi-attacher sidecar: set OPERATING_MODE=attacher');
    return EXIT.error;
  }
  const report = await controller.fullPass({ deadline: controller.clock.now() + CLI_BUDGET_MS }, { dryRun: true });
  if (report.shadow === undefined) {
    io.err(`cannot compare: ${report.clusterError ?? 'the cluster read was incomplete'}`);
    return EXIT.error;
  }
  io.out(options.json ? JSON.stringify({ passId: report.passId, ...report.shadow }, null, 2) : formatShadow(report.shadow));
  return EXIT.converged;
}
