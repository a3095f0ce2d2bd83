/**
 * The full pass (DESIGN §4): read the whole cluster and the whole actual state, take over on first
 * run (seed/takeover.ts; across several passes when it is large), verify against EC2 every sync
 * period, then plan, act and report.
 *
 * Cluster read failure (decided): the pass plans from an empty cluster snapshot marked
 * `complete: false`. It then attaches nothing and detaches nothing — an unreadable cluster is no
 * evidence either way — but still verifies against EC2 and resolves expired operations, which
 * need no cluster knowledge. A store read failure aborts the pass (thrown).
 */
import { buildDesiredState } from '../../core/desired-state.js';
import { seedDue, unsettledTargets, verificationDue, verificationTargets } from '../../core/verification.js';
import { pvNamesByVolume } from '../../core/volume-sources.js';
import type { ControllerState } from '../../ports/volume-store.js';
import type { PassContext } from '../pass/context.js';
import { readOrNothing } from '../pass/cluster-read.js';
import { dryRunStore } from '../pass/dry-run.js';
import { markOutOfService } from '../pass/out-of-service.js';
import { createPassContext, NOTHING_EXECUTED, planAndExecute, summarize } from '../pass/plan-and-execute.js';
import { takeOver } from './seed.js';
import { EMPTY_SNAPSHOT } from './snapshot.js';
import type { Budget, PassOptions, PassReport, ReconcileDeps } from '../pass/types.js';
import { verifyAgainstEc2 } from '../pass/verify.js';
import { reportVolumeAttachments } from './volume-attachments.js';

export async function runFullPass(baseDeps: ReconcileDeps, budget: Budget, options: PassOptions = {}): Promise<PassReport> {
  const dryRun = options.dryRun === true;
  const deps = dryRun ? { ...baseDeps, store: dryRunStore(baseDeps.store) } : baseDeps;
  const startedAt = deps.clock();
  const passId = options.passId ?? deps.newId();
  // The cluster read and the scan are independent; the scan brings the controller state along.
  const [cluster, scanned] = await Promise.all([readOrNothing(deps, () => deps.cluster.readAll(), EMPTY_SNAPSHOT), deps.store.scan()]);
  const snapshot = cluster.read;
  const controllerState = scanned.controllerState ?? (await deps.store.getControllerState());
  const desired = buildDesiredState(snapshot, { complete: cluster.complete });
  const ctx = createPassContext(deps, budget, desired, new Map(scanned.records), pvNamesByVolume(snapshot.pvs));

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
  const volumeIds = takeover === undefined ? targets.volumeIds : targets.volumeIds.filter((id) => !takeover.claimed.has(id));
  const asked = (due || volumeIds.length > 0) && (await verifyAgainstEc2(ctx, volumeIds, targets.instanceIds)) !== undefined;
  const verified = due && asked;

  const acting = !partial && !dryRun && cluster.complete;
  if (acting) await markOutOfService(ctx, snapshot.nodes);
  const executed = partial ? NOTHING_EXECUTED : await planAndExecute(ctx, dryRun);
  if (acting) await reportVolumeAttachments(ctx, snapshot);
  // Seeding counts as done only once EC2 settled every claim and the rest was verified; the verification is as old as the takeover's start.
  if (verified) await rememberVerification(ctx, takeover?.state ?? controllerState, { seeded, at: takeover?.startedAt ?? startedAt });

  const problems = [
    ...desired.problems.map((message) => ({ source: 'kubernetes' as const, message })),
    ...scanned.corrupt.map((item) => ({ source: 'dynamodb' as const, message: `item ${item.key}: ${item.problem}` })),
  ];
  const summary = { passId, kind: 'full' as const, startedAt, dryRun, clusterComplete: cluster.complete, verified, seeded, problems };
  const report = summarize(ctx, cluster.error === undefined ? summary : { ...summary, clusterError: cluster.error }, executed);
  if (takeover === undefined) return report;
  return { ...report, takeover: { done: takeover.done, left: takeover.left }, ...(partial ? { converged: false } : {}) };
}

/** Another pass may have written the state meanwhile: its write is as good as ours. */
export async function rememberVerification(ctx: PassContext, state: ControllerState, done: { seeded: boolean; at: number }): Promise<void> {
  const { takeover: _done, ...rest } = state;
  const next: ControllerState = done.seeded
    ? { ...rest, lastVerifiedAt: done.at, seededAt: done.at }
    : { ...state, lastVerifiedAt: done.at };
  const written = await ctx.deps.store.putControllerState(next);
  if (!written.ok) ctx.deps.log.info("controller state changed meanwhile; keeping the other pass's");
}
