/**
 * The attacher-mode full pass: read every VolumeAttachment, PV, CSINode and node (no pods: kcm
 * decided from them already), plan on the desired state they make (core/attacher), verify against
 * EC2 every sync period, execute with the shared machinery, and report on the VolumeAttachments.
 * An unreadable cluster attaches and detaches nothing, as in controller mode. While a live watcher
 * covers the cluster (pass/coverage.ts) it is a covered pass instead: the store, the rolling
 * slice, nothing listed, and the VolumeAttachment of any attachment EC2 contradicted acted on now.
 */
import { attacherDesiredState } from '../../core/attacher/desired.js';
import { volumesToAdopt } from '../../core/attacher/adopt.js';
import { coveredScope } from '../../core/coverage.js';
import { attacherTargets, type AttacherView, type VaTarget } from '../../core/attacher/targets.js';
import type { InstanceId } from '../../core/types.js';
import { unsettledTargets, verificationDue, verificationTargets } from '../../core/verification.js';
import { pvNamesByVolume } from '../../core/volume-sources.js';
import type { ControllerState } from '../../ports/volume-store.js';
import { readOrNothing } from '../pass/cluster-read.js';
import { completeBody } from '../pass/complete-body.js';
import { scanRecords } from '../pass/scan.js';
import { decideCoverage, wholeAsked } from '../pass/coverage.js';
import { coveredBody, coveredSteps } from '../pass/covered.js';
import type { PassContext } from '../pass/state.js';
import { createPassContext } from '../pass/context.js';
import { markOutOfService } from '../pass/out-of-service.js';
import { planAndExecute } from '../pass/plan-and-execute.js';
import { rememberVerification } from '../pass/remember-verification.js';
import { runPass, type PassBody, type PassStart } from '../pass/template.js';
import type { Budget, PassOptions, PassReport } from '../pass/types.js';
import { verifyAgainstEc2 } from '../pass/verify.js';
import { reportUnwanted } from './after-execute.js';
import type { AttacherDeps } from './deps.js';
import { actOnVolumeAttachments } from './act-on.js';
import { attacherMode } from './reports.js';
import { preflightTargets, reportShadow, seeSidecarLease, shadowVolumes } from './shadow.js';
import { attacherWatch } from './watch.js';

const NOTHING_READ: AttacherView = { volumeAttachments: [], pvs: [], csiNodes: [], nodes: [] };

/** The full pass's report, with what it read and decided (a dead instance's follow-through starts from them). */
export interface AttacherFullPass {
  report: PassReport;
  ctx: PassContext;
  view: AttacherView;
  targets: VaTarget[];
}

/** `ask`: instances EC2 is asked about in any case (an EC2 state-change event's, so its node's taint is decided now). */
export async function runAttacherFullPass(
  baseDeps: AttacherDeps,
  budget: Budget,
  options: PassOptions = {},
  ask: readonly InstanceId[] = [],
): Promise<PassReport> {
  return (await attacherFullPass(baseDeps, budget, options, ask)).report;
}

export async function attacherFullPass(
  baseDeps: AttacherDeps,
  budget: Budget,
  options: PassOptions = {},
  ask: readonly InstanceId[] = [],
): Promise<AttacherFullPass> {
  let read!: Omit<AttacherFullPass, 'report'>;
  const report = await runPass(baseDeps, options, async (start) => {
    // An EC2 event's pass follows a dead instance through from what it read: it reads everything.
    const whole = ask.length > 0 ? 'an EC2 event asks about instances' : wholeAsked(options);
    const decided = await decideCoverage(start.deps, attacherWatch.kinds, start.startedAt, whole);
    if (decided.coverage.covered) {
      const covered = await coveredPass(start, budget, decided.state ?? { version: 0 }, decided.coverage.watcher);
      read = { ctx: covered.ctx, view: NOTHING_READ, targets: [] };
      return covered;
    }
    start.deps.log.info('complete pass', { why: decided.coverage.why });
    const { deps, dryRun, startedAt } = start;
    // A shadow checks that the sidecar's Lease is where the fence will look, beside its other reads.
    const leaseSeen = dryRun && deps.leaseCheck !== undefined ? seeSidecarLease(deps.leaseCheck) : undefined;
    const [cluster, scanned] = await Promise.all([
      readOrNothing(deps, () => deps.cluster.readAttacherView(), NOTHING_READ),
      scanRecords(deps.store),
    ]);
    const view = cluster.read;
    const controllerState = scanned.controllerState ?? decided.state ?? (await deps.store.getControllerState());
    const targets = attacherTargets(view);
    const desired = attacherDesiredState(view, targets, { complete: cluster.complete });
    const mode = attacherMode(deps, { targets, ...(cluster.complete ? { listing: view } : {}), pvsRead: view.pvs });
    const ctx = createPassContext(deps, budget, { desired, actual: new Map(scanned.records) }, mode);
    read = { ctx, view, targets };

    const due = verificationDue(false, controllerState.lastVerifiedAt, startedAt, deps.settings.syncPeriodMs);
    const chosen = due ? verificationTargets(ctx.desired, ctx.actual) : unsettledTargets(ctx.actual);
    // A dry run is the shadow of the sidecar: EC2's word on every volume the cluster names.
    const shadowedVolumes = dryRun ? shadowVolumes(targets, pvNamesByVolume(view.pvs)) : [];
    const volumeIds = [...new Set([...chosen.volumeIds, ...volumesToAdopt(targets, ctx.actual), ...shadowedVolumes])].sort();
    const instanceIds = [...new Set([...chosen.instanceIds, ...ask])].sort();
    const asked = volumeIds.length + instanceIds.length > 0 && (await verifyAgainstEc2(ctx, volumeIds, instanceIds)) !== undefined;
    const verified = due && asked;

    // kcm detaches a dead instance's volumes at once only when the node carries the out-of-service taint.
    if (!dryRun && cluster.complete) await markOutOfService(ctx, view.nodes);
    const executed = await planAndExecute(ctx, dryRun);
    const preflights = dryRun && options.preflight === true && cluster.complete ? await preflightTargets(ctx, targets) : undefined;
    const unwanted = !dryRun && cluster.complete ? reportUnwanted(ctx, targets) : undefined;
    if (verified) await rememberVerification(ctx, controllerState, { seeded: false, at: startedAt, complete: cluster.complete });
    const steps = { executed, cluster, verified, seeded: false, corrupt: scanned.corrupt, unwanted, why: decided.coverage.why };
    // The report sets the sidecar's VolumeAttachments beside EC2's word and our plan (issue 12).
    const shadow = dryRun && cluster.complete ? { shadow: reportShadow(ctx, targets, executed, await leaseSeen, preflights) } : {};
    return completeBody(ctx, steps, shadow);
  });
  return { report, ...read };
}

/** Nothing listed: the store, the rolling slice, and kcm's objects for what EC2 contradicted (attach only). */
async function coveredPass(
  { deps, dryRun, startedAt }: PassStart<AttacherDeps>,
  budget: Budget,
  read: ControllerState,
  watcher: string,
): Promise<PassBody> {
  const scanned = await scanRecords(deps.store);
  const desired = attacherDesiredState(NOTHING_READ, [], { complete: false, scope: coveredScope(scanned.records) });
  const mode = attacherMode(deps, { targets: [], pvsRead: [] });
  const ctx = createPassContext(deps, budget, { desired, actual: new Map(scanned.records) }, mode);
  const steps = await coveredSteps(ctx, scanned.controllerState ?? read, startedAt, dryRun);
  const found = await Promise.all(steps.contradicted.map((pair) => deps.cluster.readVolumeAttachmentFor(pair.volumeId, pair.nodeName)));
  const volumeAttachments = found.filter((va) => va !== undefined);
  // kcm still wants what EC2 lost: attached again now, as the VolumeAttachment's own pass would.
  if (volumeAttachments.length > 0) await actOnVolumeAttachments(deps, budget, { volumeAttachments }, dryRun);
  return coveredBody(ctx, steps, scanned.corrupt, { watcher, healed: volumeAttachments.length });
}
