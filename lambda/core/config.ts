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
   * An operation's lease ends this long after its invocation's own end (see `leaseMsFor` in operations.ts): room
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
