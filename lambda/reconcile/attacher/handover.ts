/**
 * A pass under the handover (docs/eks.md): before it may act it enters the store's handover record,
 * which succeeds only while writes are on, so a handback that turned them off knows every pass that
 * may still act; then, with the lease fence, it takes or renews the sidecar's Lease. A pass that
 * cannot enter, or is fenced, only plans (a dry run) and says why. It leaves the record at its end.
 */
import { expiredPasses, type HandoverState } from '../../core/attacher/handover.js';
import type { HandoverStore } from '../../ports/handover.js';
import type { Budget, PassOptions, PassReport } from '../pass/types.js';
import type { LeaseFence } from './fence.js';

export interface Handover {
  store: HandoverStore;
  /** LEASE_FENCE=on; absent: no Lease is held (the sidecar is gone). */
  fence?: LeaseFence;
  /** Added to the invocation's end: a pass has surely stopped by then (the operation leases' margin, for clock skew). */
  marginMs: number;
  now: () => number;
}

function writesOff(state: HandoverState): string {
  const change = state.writesChange;
  const since = change === undefined ? '' : ` by ${change.by} at ${new Date(change.at).toISOString()}`;
  return `writes are off${since}: the csi-attacher sidecar is in charge (\`ebs-attach-detach takeover\` turns them on again)`;
}

export async function underHandover(
  handover: Handover,
  budget: Budget,
  options: PassOptions & { passId: string },
  run: (options: PassOptions) => Promise<PassReport>,
): Promise<PassReport> {
  const { store, fence } = handover;
  const until = (budget.endsAt ?? budget.deadline) + handover.marginMs;
  const { entered, state } = await store.enter(options.passId, until);
  if (!entered) return { ...(await run({ ...options, dryRun: true })), writesOff: writesOff(state) };
  try {
    if (fence === undefined) return await run(options);
    const verdict = await fence.acquireOrRenew(state);
    const fenceReport = { state: verdict.state, ...(verdict.holder === undefined ? {} : { holder: verdict.holder }) };
    if (verdict.held) return { ...(await run(options)), fence: fenceReport };
    return { ...(await run({ ...options, dryRun: true })), fenced: verdict.why, fence: fenceReport };
  } finally {
    // An entry left behind (the store failing now) expires at `until` by itself.
    await store.leave([options.passId, ...expiredPasses(state, handover.now())]).catch(() => undefined);
  }
}
