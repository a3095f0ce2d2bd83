/** Tunables of the plan with upstream's defaults. */
import { DEFAULT_BACKOFF, type BackoffConfig } from './backoff.js';

export interface PlanConfig {
  /** Force detach after a node is not Ready this long; null disables it (upstream's disable-force-detach-on-timeout). */
  maxWaitForUnmountMs: number | null;
  /** A pass may not detach more than `maxFraction` of attached volumes when more than `minAttached` are attached; null disables. */
  massDetachGuard: { maxFraction: number; minAttached: number } | null;
  /** An attach still `attaching` after this long is detached and retried. */
  stuckAttachMs: number;
  /** How long an operation's lease lasts (a few × the Lambda timeout). */
  leaseMs: number;
  backoff: BackoffConfig;
}

export const DEFAULT_PLAN_CONFIG: PlanConfig = {
  maxWaitForUnmountMs: 6 * 60_000,
  massDetachGuard: { maxFraction: 0.5, minAttached: 10 },
  stuckAttachMs: 90_000,
  leaseMs: 3 * 5 * 60_000,
  backoff: DEFAULT_BACKOFF,
};
