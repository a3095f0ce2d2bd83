/**
 * `shadow`: the step before taking over from the csi-attacher sidecar (issue #12). One dry-run
 * attacher pass — nothing written, the sidecar's Lease untouched — and the table of what the
 * sidecar reported on each VolumeAttachment beside what EC2 says and what we would do next, and
 * whether EC2 would let our role make that next call (a DryRun of it, the preflight).
 */
import type { Controller } from '../../composition.js';
import type { ShadowComparison } from '../../core/attacher/shadow.js';
import { formatShadow } from '../format.js';
import type { Io } from '../io.js';
import { EXIT } from './exit.js';
import { CLI_BUDGET_MS } from './pass.js';

/** One dry-run attacher pass with the preflight: the comparison, or undefined (said on stderr) when there is none. */
export async function shadowComparison(controller: Controller, io: Io): Promise<{ passId: string; shadow: ShadowComparison } | undefined> {
  const report = await controller.fullPass({ deadline: controller.clock.now() + CLI_BUDGET_MS }, { dryRun: true, preflight: true });
  if (report.shadow !== undefined) return { passId: report.passId, shadow: report.shadow };
  io.err(`cannot compare: ${report.clusterError ?? 'the cluster read was incomplete'}`);
  return undefined;
}

export async function runShadow(controller: Controller, options: { json: boolean }, io: Io): Promise<number> {
  if (controller.config.mode !== 'attacher') {
    io.err('shadow compares the work of the EBS CSI csi-attacher sidecar: set OPERATING_MODE=attacher');
    return EXIT.error;
  }
  const compared = await shadowComparison(controller, io);
  if (compared === undefined) return EXIT.error;
  io.out(options.json ? JSON.stringify({ passId: compared.passId, ...compared.shadow }, null, 2) : formatShadow(compared.shadow));
  return EXIT.converged;
}
