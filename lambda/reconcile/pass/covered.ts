/**
 * The covered pass's shared steps (a live watcher covers the cluster; nothing was listed): verify
 * what the rolling slice names at a sync (core/verification.ts `rollingTargets`) or what is
 * unsettled in between, resolve expired operations, and plan on a desired state marked incomplete,
 * so nothing is attached, detached or unreported from a picture the pass did not read
 * (invariant 3). Records EC2 contradicted are handed back: the mode runs their targeted passes.
 */
import { coveredRecords } from '../../core/coverage.js';
import { rollingTargets, unsettledTargets, verificationDue } from '../../core/verification.js';
import type { NodeName, VolumeId } from '../../core/types.js';
import type { ControllerState, CorruptItem } from '../../ports/volume-store.js';
import type { PassContext } from './state.js';
import { planAndExecute, type Executed } from './plan-and-execute.js';
import { rememberVerification } from './remember-verification.js';
import type { PassBody } from './template.js';
import { verifyAgainstEc2 } from './verify.js';

export interface CoveredSteps {
  executed: Executed;
  verified: boolean;
  /** Attachments whose record EC2 corrected (an out-of-band detach, an attachment gone missing). */
  contradicted: { volumeId: VolumeId; nodeName: NodeName }[];
}

/** Sync periods an attachment counts as recently changed for: it is described at every sync meanwhile. */
const RECENT_SYNCS = 2;

export async function coveredSteps(ctx: PassContext, state: ControllerState, startedAt: number, dryRun: boolean): Promise<CoveredSteps> {
  const { syncPeriodMs, coverage } = ctx.deps.settings;
  const due = verificationDue(false, state.lastVerifiedAt, startedAt, syncPeriodMs);
  const slice = state.slice ?? 0;
  const targets = due
    ? rollingTargets(ctx.actual, { slice, slices: coverage.verifySlices, now: startedAt, recentMs: RECENT_SYNCS * syncPeriodMs })
    : unsettledTargets(ctx.actual);
  const before = new Map(ctx.actual);
  const asked =
    targets.volumeIds.length + targets.instanceIds.length > 0 &&
    (await verifyAgainstEc2(ctx, targets.volumeIds, targets.instanceIds)) !== undefined;
  const contradicted = corrected(before, ctx);
  const scope = ctx.desired.scope;
  const executed = await planAndExecute(ctx, dryRun, scope === undefined ? ctx.actual : coveredRecords(ctx.actual, scope));
  const verified = due && asked;
  if (verified) await rememberVerification(ctx, state, { seeded: false, at: startedAt, slice: slice + 1 });
  return { executed, verified, contradicted };
}

/** Every attachment, before or after, of the records verification rewrote. */
function corrected(
  before: ReadonlyMap<VolumeId, { attachments: Record<NodeName, unknown> }>,
  ctx: PassContext,
): CoveredSteps['contradicted'] {
  const pairs: CoveredSteps['contradicted'] = [];
  for (const [volumeId, record] of ctx.actual) {
    const old = before.get(volumeId);
    if (old === record) continue;
    const nodes = new Set([...Object.keys(old?.attachments ?? {}), ...Object.keys(record.attachments)]);
    for (const nodeName of nodes) pairs.push({ volumeId, nodeName });
  }
  return pairs;
}

/** A covered pass's report, in either mode: nothing was listed, `healed` targets were passed for what EC2 contradicted. */
export function coveredBody(
  ctx: PassContext,
  steps: CoveredSteps,
  corrupt: readonly CorruptItem[],
  coverage: { watcher: string; healed: number },
): PassBody {
  return {
    kind: 'full',
    ctx,
    executed: steps.executed,
    clusterComplete: false,
    covered: true,
    verified: steps.verified,
    seeded: false,
    corrupt,
    extra: { coverage: { covered: true, ...coverage } },
  };
}
