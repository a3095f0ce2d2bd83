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

/** How the pass was admitted: whether it entered the record (then it leaves it), may act, and what its report adds. */
interface Admitted {
  entered: boolean;
  state: HandoverState;
  act: boolean;
  extra: Partial<PassReport>;
}

async function admit(handover: Handover, passId: string, until: number): Promise<Admitted> {
  const { store, fence } = handover;
  const { entered, state } = await store.enter(passId, until);
  if (!entered) return { entered, state, act: false, extra: { writesOff: writesOff(state) } };
  if (fence === undefined) return { entered, state, act: true, extra: {} };
  try {
    const verdict = await fence.acquireOrRenew(state);
    const fenceReport = { state: verdict.state, ...(verdict.holder === undefined ? {} : { holder: verdict.holder }) };
    if (verdict.held) return { entered, state, act: true, extra: { fence: fenceReport } };
    return { entered, state, act: false, extra: { fenced: verdict.why, fence: fenceReport } };
  } catch (error) {
    await leave(handover, passId, state);
    throw error;
  }
}

/** An entry left behind (the store failing now) expires at `until` by itself. */
async function leave(handover: Handover, passId: string, state: HandoverState): Promise<void> {
  await handover.store.leave([passId, ...expiredPasses(state, handover.now())]).catch(() => undefined);
}

/**
 * `readsFirst`: the pass starts reading at once and is handed its admission as a promise
 * (`PassOptions.admission`), so the entry's round trip runs beside its reads; it writes nothing
 * before the entry is in, so a handback that turns writes off still knows every pass that may act.
 */
export async function underHandover(
  handover: Handover,
  budget: Budget,
  options: PassOptions & { passId: string },
  run: (options: PassOptions) => Promise<PassReport>,
  readsFirst = false,
): Promise<PassReport> {
  const until = (budget.endsAt ?? budget.deadline) + handover.marginMs;
  const admission = admit(handover, options.passId, until);
  const act = admission.then((a) => a.act);
  // A pass that ends before it asks (nothing to do) never awaits `act`: its failure is the report's below.
  act.catch(() => undefined);
  try {
    const asked = readsFirst ? { ...options, admission: act } : { ...options, ...((await admission).act ? {} : { dryRun: true }) };
    const report = await run(asked);
    return { ...report, ...(await admission).extra };
  } finally {
    const admitted = await admission.catch(() => undefined);
    if (admitted?.entered) await leave(handover, options.passId, admitted.state);
  }
}
