/**
 * The full pass (DESIGN §4). While a live watcher covers the cluster (pass/coverage.ts) it is a
 * covered pass: it scans the store, verifies the rolling slice, plans on nothing read (so it
 * attaches, detaches and unreports nothing) and runs the node's targeted pass for any attachment
 * EC2 contradicted. Otherwise it is complete: read the whole cluster and the whole actual state,
 * take over on first run (seed.ts; across several passes when it is large), verify every volume
 * against EC2 every sync period, then plan, act and report.
 *
 * Cluster read failure (decided): the pass plans from an empty cluster snapshot marked
 * `complete: false`. It then attaches nothing and detaches nothing — an unreadable cluster is no
 * evidence either way — but still verifies against EC2 and resolves expired operations, which
 * need no cluster knowledge. A store read failure aborts the pass (thrown).
 */
import { coveredScope } from '../../core/coverage.js';
import { buildDesiredState } from '../../core/desired-state.js';
import { seedDue, unrecordedAttachments, unsettledTargets, verificationDue, verificationTargets } from '../../core/verification.js';
import type { PassContext } from '../pass/state.js';
import { decideCoverage, wholeAsked, type Decided } from '../pass/coverage.js';
import { coveredBody, coveredSteps } from '../pass/covered.js';
import { readOrNothing } from '../pass/cluster-read.js';
import { completeBody } from '../pass/complete-body.js';
import { scanRecords } from '../pass/scan.js';
import { createPassContext } from '../pass/context.js';
import { markOutOfService } from '../pass/out-of-service.js';
import { NOTHING_EXECUTED, planAndExecute } from '../pass/plan-and-execute.js';
import { rememberVerification } from '../pass/remember-verification.js';
import { runPass, type PassBody, type PassStart } from '../pass/template.js';
import type { Budget, PassOptions, PassReport } from '../pass/types.js';
import { verifyAgainstEc2 } from '../pass/verify.js';
import type { ControllerDeps } from './deps.js';
import { controllerMode } from './reports.js';
import { takeOver, type Takeover } from './seed.js';
import { EMPTY_SNAPSHOT } from './snapshot.js';
import { runTargetedPass } from './targeted-pass.js';
import { controllerWatch } from './watch.js';

export async function runFullPass(baseDeps: ControllerDeps, budget: Budget, options: PassOptions = {}): Promise<PassReport> {
  return runPass(baseDeps, options, async (start) => {
    const decided = await decideCoverage(start.deps, controllerWatch.kinds, start.startedAt, wholeAsked(options));
    if (!decided.coverage.covered) start.deps.log.info('complete pass', { why: decided.coverage.why });
    return decided.coverage.covered ? coveredPass(start, budget, decided) : completePass(start, budget, decided);
  });
}

async function coveredPass({ deps, dryRun, startedAt }: PassStart<ControllerDeps>, budget: Budget, decided: Decided): Promise<PassBody> {
  const scanned = await scanRecords(deps.store);
  const desired = buildDesiredState(EMPTY_SNAPSHOT, { complete: false, scope: coveredScope(scanned.records) });
  const ctx = createPassContext(deps, budget, { desired, actual: new Map(scanned.records) }, controllerMode(deps, { pvs: [] }));
  const steps = await coveredSteps(ctx, scanned.controllerState ?? decided.state ?? { version: 0 }, startedAt, dryRun);
  // What EC2 contradicted is healed now, by the node's own pass, not at the next complete one.
  const nodes = [...new Set(steps.contradicted.map((pair) => pair.nodeName))];
  for (const name of nodes) await runTargetedPass(deps, { kind: 'node', name }, budget, { dryRun });
  const watcher = decided.coverage.covered ? decided.coverage.watcher : '';
  return coveredBody(ctx, steps, scanned.corrupt, { watcher, healed: nodes.length });
}

async function completePass(
  { deps, dryRun, passId, startedAt }: PassStart<ControllerDeps>,
  budget: Budget,
  decided: Decided,
): Promise<PassBody> {
  // The cluster read and the scan are independent; the scan brings the controller state along.
  const [cluster, scanned] = await Promise.all([
    readOrNothing(deps, () => deps.cluster.readAll(), EMPTY_SNAPSHOT),
    scanRecords(deps.store),
  ]);
  const snapshot = cluster.read;
  const controllerState = scanned.controllerState ?? decided.state ?? (await deps.store.getControllerState());
  const desired = buildDesiredState(snapshot, { complete: cluster.complete });
  const mode = controllerMode(deps, { pvs: snapshot.pvs, listed: snapshot });
  const ctx = createPassContext(deps, budget, { desired, actual: new Map(scanned.records) }, mode);

  const seeded = seedDue(cluster.complete, controllerState.seededAt);
  const takeover = seeded ? await takeOver(ctx, snapshot, controllerState, passId) : undefined;
  if (takeover !== undefined) deps.log.info('taking over from the cluster', { done: takeover.done, left: takeover.left });
  // Until every claim is on record, any plan would decide on half a picture: a partial takeover plans nothing.
  const partial = takeover !== undefined && takeover.left > 0;
  const due = !partial && verificationDue(seeded, controllerState.lastVerifiedAt, startedAt, deps.settings.syncPeriodMs);
  const targets = partial
    ? { volumeIds: [], instanceIds: [] }
    : due
      ? verificationTargets(ctx.desired, ctx.actual)
      : unsettledTargets(ctx.actual);
  // The takeover asked EC2 about every claimed volume already (this pass or an earlier one of it).
  const claimed = takeover?.claimed;
  const volumeIds = claimed === undefined ? targets.volumeIds : targets.volumeIds.filter((id) => !claimed.has(id));
  const asked = (due || volumeIds.length > 0) && (await verifyAgainstEc2(ctx, volumeIds, targets.instanceIds)) !== undefined;
  const verified = due && asked;

  if (!partial && !dryRun && cluster.complete) await markOutOfService(ctx, snapshot.nodes);
  const executed = partial ? NOTHING_EXECUTED : await planAndExecute(ctx, dryRun);
  const unwanted = !partial && !dryRun && cluster.complete && asked ? reportUnwanted(ctx) : undefined;
  // Seeding counts as done only once EC2 settled every claim and the rest was verified; the verification is as old as the takeover's start.
  // Only a complete read with every volume described restarts the safety period of covered passes.
  const done = { seeded, at: takeover?.startedAt ?? startedAt, complete: cluster.complete };
  if (verified) await rememberVerification(ctx, takeover?.state ?? controllerState, done);
  const why = decided.coverage.covered ? '' : decided.coverage.why;
  return completeBody(
    ctx,
    { executed, cluster, verified, seeded, corrupt: scanned.corrupt, unwanted, why },
    takeover === undefined ? {} : takeoverReport(takeover),
  );
}

/** A takeover's progress; a pass that left some of it to the next one has not converged. */
function takeoverReport(takeover: Takeover): Partial<PassReport> {
  return { takeover: { done: takeover.done, left: takeover.left }, ...(takeover.left > 0 ? { converged: false } : {}) };
}

/**
 * Attachments EC2 shows on nodes' instances that nothing in the cluster names there: someone else's,
 * so they are counted and named in a log line, never detached (adoptableNodes says why).
 */
function reportUnwanted(ctx: PassContext): number {
  const unwanted = unrecordedAttachments(ctx.desired, ctx.actual, ctx.observations);
  for (const attachment of unwanted) {
    ctx.deps.log.warn('EC2 shows an attachment no node status or VolumeAttachment names; left attached', attachment);
  }
  return unwanted.length;
}
