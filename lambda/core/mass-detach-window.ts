/**
 * The mass-detach window (DESIGN §5, §11 invariant 3's safety net): passes overlap (a schedule
 * tick and events, a slow full pass and the next tick), and each runs in its own execution
 * environment, so the guard's count of detaches lives in the store. A pass claims slots in the
 * window before it detaches; together, the passes of one window never detach more than the
 * fraction of the attached volumes that one pass may.
 *
 *   A plans 12 of 24 ─ A claims 12 (window: 12) ─ B plans the other 12 ─ B claims: 12 − 12 = 0, holds back 12.
 */
import type { DetachAction, HeldBack, Plan } from './actions.js';
import { exemptFromMassGuard } from './guards.js';
import { MASS_DETACH_GUARD } from './reasons.js';

/** One pass's claim: `count` detaches started at `at` (epoch ms). */
export interface WindowClaim {
  at: number;
  count: number;
}

/** The stored window: the claims of the last `windowMs`, and the compare-and-swap version (0: never written). */
export interface DetachWindow {
  claims: WindowClaim[];
  version: number;
}

export interface ClaimRequest {
  /** Guarded detaches the pass wants to start. */
  wanted: number;
  /** The pass's own limit: the fraction of the attached volumes it counted. */
  limit: number;
  windowMs: number;
}

/** Claims that still count at `now`: made within the last `windowMs`, or stamped later by a clock ahead of ours. */
export function liveClaims(window: DetachWindow, now: number, windowMs: number): WindowClaim[] {
  return window.claims.filter((claim) => claim.at > now - windowMs);
}

/**
 * How many of `wanted` detaches the pass may start, and the window to store (expired claims
 * dropped; the new claim added when anything is granted). Never negative, never above `wanted`.
 */
export function claimDetaches(window: DetachWindow, request: ClaimRequest, now: number): { granted: number; next: DetachWindow } {
  const live = liveClaims(window, now, request.windowMs);
  const used = live.reduce((sum, claim) => sum + claim.count, 0);
  const granted = Math.max(0, Math.min(request.wanted, request.limit - used));
  const claims = granted > 0 ? [...live, { at: now, count: granted }] : live;
  return { granted, next: { claims, version: window.version } };
}

/** The detaches of a plan the window counts: not exempt from the guard (see guards.ts). */
export function guardedDetaches(plan: Plan): DetachAction[] {
  return plan.actions.filter((a): a is DetachAction => a.kind === 'detach' && !exemptFromMassGuard(a));
}

/**
 * The plan with every guarded detach after the first `granted` held back (its unreport too, so
 * the node keeps reporting a volume that stays attached), in plan order like the per-pass guard.
 */
export function holdBackBeyond(plan: Plan, granted: number, windowMs: number): Plan {
  const beyond = guardedDetaches(plan).slice(granted);
  if (beyond.length === 0) return plan;
  const held = new Set(beyond.map((d) => `${d.volumeId}|${d.nodeName}`));
  const reason = `mass-detach guard: overlapping passes already detached the allowed fraction in the last ${Math.round(windowMs / 1000)} s; ${beyond.length} detaches wait`;
  const heldBack: HeldBack[] = beyond.map((action) => ({ action, code: MASS_DETACH_GUARD, reason }));
  return {
    ...plan,
    actions: plan.actions.filter((a) => !((a.kind === 'detach' || a.kind === 'unreport') && held.has(`${a.volumeId}|${a.nodeName}`))),
    heldBack: [...plan.heldBack, ...heldBack],
  };
}
