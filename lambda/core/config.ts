/** Tunables of the plan with upstream's defaults. */
import { DEFAULT_BACKOFF, type BackoffConfig } from './backoff.js';

export interface PlanConfig {
  /** Force detach after a node is not Ready this long; null disables it (upstream's disable-force-detach-on-timeout). */
  maxWaitForUnmountMs: number | null;
  /** A pass may not detach more than `maxFraction` of attached volumes when more than `minAttached` are attached; null disables. */
  massDetachGuard: { maxFraction: number; minAttached: number } | null;
  /** Nor may the passes of this window together (the window lives in the store, mass-detach-window.ts). */
  massDetachWindowMs: number;
  /** An attach still `attaching` after this long is detached and retried. */
  stuckAttachMs: number;
  /**
   * An operation's lease ends this long after its invocation's own end (see `leaseMsFor`): room
   * for clock skew between execution environments and for a request sent just before the end.
   */
  leaseMarginMs: number;
  backoff: BackoffConfig;
}

export const DEFAULT_PLAN_CONFIG: PlanConfig = {
  maxWaitForUnmountMs: 6 * 60_000,
  massDetachGuard: { maxFraction: 0.5, minAttached: 10 },
  massDetachWindowMs: 5 * 60_000,
  stuckAttachMs: 90_000,
  leaseMarginMs: 15_000,
  backoff: DEFAULT_BACKOFF,
};

/**
 * How long a lease taken at `now` lasts: until the holding invocation's end plus the margin.
 *
 * Why that is enough (DESIGN §5): an invocation cannot outlive its function timeout — Lambda stops
 * it there, and nothing it started can call EC2 or write the store afterwards. So once its end
 * plus the margin has passed, whatever it did is already visible in EC2, and the next pass can
 * resolve the operation against DescribeVolumes. The margin covers the two things that are not
 * instantaneous: clocks of different execution environments (kept within milliseconds by the
 * Amazon Time Sync Service) and a request on the wire at the end (the EC2 client's request
 * timeout is 10 s). A killed invocation's volume therefore waits at most its function's timeout
 * plus the margin, not a fixed 15 minutes; a short targeted function recovers sooner.
 */
export function leaseMsFor(invocationEndsAt: number, now: number, config: Pick<PlanConfig, 'leaseMarginMs'>): number {
  return Math.max(0, invocationEndsAt - now) + config.leaseMarginMs;
}
