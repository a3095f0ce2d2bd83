/**
 * Every reason the plan leaves a (volume, node) alone, and every reason the builder skips a pod
 * volume, carries a stable code: one scenario per code (reason-scenarios.ts), and no code without one.
 */
import { describe, expect, it } from 'vitest';
import { buildDesiredState } from '../../lambda/core/desired-state.js';
import { plan } from '../../lambda/core/plan.js';
import { MASS_DETACH_GUARD, SKIP_CODES, WAIT_CODES } from '../../lambda/core/reasons.js';
import type { ReasonWorld } from './reason-scenarios.js';
import { HELD_BACK_WORLD, SKIP_SCENARIOS, V, WAIT_SCENARIOS } from './reason-scenarios.js';

const planOf = (w: ReasonWorld) =>
  plan(
    {
      ...buildDesiredState(w.snapshot, { complete: w.complete }),
      ...(w.released === undefined ? {} : { decidedBy: { kind: 'kcm' as const, released: new Set(w.released) } }),
    },
    new Map(w.records.map((r) => [r.volumeId, r])),
    w.observations,
    w.now,
    w.config,
  );

describe('plan: deferred pairs carry a stable code and the operation that waits', () => {
  it.each(WAIT_SCENARIOS.map((s) => [s.code, s] as const))('%s', (code, scenario) => {
    const deferred = planOf(scenario.world).deferred!.filter((d) => d.volumeId === V && d.nodeName === scenario.nodeName);
    expect(deferred.map((d) => [d.code, d.operation])).toEqual([[code, scenario.operation]]);
    expect(deferred[0]!.reason).not.toBe('');
  });

  it('every wait code has its scenario', () => {
    expect(WAIT_SCENARIOS.map((s) => s.code).sort()).toEqual([...WAIT_CODES].sort());
  });

  it('a detach the mass-detach guard holds back carries its code', () => {
    const { heldBack } = planOf(HELD_BACK_WORLD);
    expect(heldBack).toHaveLength(6);
    expect(new Set(heldBack.map((h) => h.code))).toEqual(new Set([MASS_DETACH_GUARD]));
  });
});

describe('buildDesiredState: the shared skip scenarios', () => {
  it.each(SKIP_SCENARIOS.map((s) => [s.code, s] as const))('%s', (code, scenario) => {
    expect(buildDesiredState(scenario.world.snapshot).skipped.map((s) => s.code)).toEqual([code]);
  });

  it('every skip code has its scenario', () => {
    expect(SKIP_SCENARIOS.map((s) => s.code).sort()).toEqual([...SKIP_CODES].sort());
  });
});
