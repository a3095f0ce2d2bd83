/**
 * The full pass (DESIGN §4): read the whole cluster and the whole actual state, seed on first
 * run, verify against EC2 every sync period, then plan, act and report.
 *
 * Cluster read failure (decided): the pass plans from an empty cluster snapshot marked
 * `complete: false`. It then attaches nothing and detaches nothing — an unreadable cluster is no
 * evidence either way — but still verifies against EC2 and resolves expired operations, which
 * need no cluster knowledge. A store read failure aborts the pass (thrown).
 */
import { buildDesiredState } from '../core/desired-state.js';
import { seedDue, unsettledTargets, verificationDue, verificationTargets } from '../core/verification.js';
import { pvNamesByVolume } from '../core/volume-sources.js';
import type { ControllerState } from '../ports/volume-store.js';
import type { PassContext } from './context.js';
import { readOrNothing } from './cluster-read.js';
import { dryRunStore } from './dry-run.js';
import { markOutOfService } from './out-of-service.js';
import { createPassContext, planAndExecute, summarize } from './pass.js';
import { seedFromCluster } from './seed.js';
import { EMPTY_SNAPSHOT } from './snapshot.js';
import type { Budget, PassOptions, PassReport, ReconcileDeps } from './types.js';
import { verifyAgainstEc2 } from './verify.js';
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
  if (seeded) deps.log.info('seeding the actual state from the cluster', { claims: await seedFromCluster(ctx, snapshot) });
  const due = verificationDue(seeded, controllerState.lastVerifiedAt, startedAt, deps.settings.syncPeriodMs);
  const targets = due ? verificationTargets(ctx.desired, ctx.actual) : unsettledTargets(ctx.actual);
  const asked =
    (due || targets.volumeIds.length > 0) && (await verifyAgainstEc2(ctx, targets.volumeIds, targets.instanceIds)) !== undefined;
  const verified = due && asked;

  if (!dryRun && cluster.complete) await markOutOfService(ctx, snapshot.nodes);
  const executed = await planAndExecute(ctx, dryRun);
  if (!dryRun && cluster.complete) await reportVolumeAttachments(ctx, snapshot);
  // Seeding counts as done only once EC2 settled the seeded entries; until then every pass re-seeds (idempotent).
  if (verified) await rememberVerification(ctx, controllerState, { seeded, at: startedAt });

  const problems = [
    ...desired.problems.map((message) => ({ source: 'kubernetes' as const, message })),
    ...scanned.corrupt.map((item) => ({ source: 'dynamodb' as const, message: `item ${item.key}: ${item.problem}` })),
  ];
  const summary = { passId, kind: 'full' as const, startedAt, dryRun, clusterComplete: cluster.complete, verified, seeded, problems };
  return summarize(ctx, cluster.error === undefined ? summary : { ...summary, clusterError: cluster.error }, executed);
}

/** Another pass may have written the state meanwhile: its write is as good as ours. */
export async function rememberVerification(ctx: PassContext, state: ControllerState, done: { seeded: boolean; at: number }): Promise<void> {
  const next: ControllerState = { ...state, lastVerifiedAt: done.at };
  if (done.seeded) next.seededAt = done.at;
  const written = await ctx.deps.store.putControllerState(next);
  if (!written.ok) ctx.deps.log.info("controller state changed meanwhile; keeping the other pass's");
}
