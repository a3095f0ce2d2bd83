import { describe, expect, it } from 'vitest';
import type { DetachAction, DetachTrigger, Plan } from '../../lambda/core/actions.js';
import { claimDetaches, guardedDetaches, holdBackBeyond, liveClaims, type DetachWindow } from '../../lambda/core/mass-detach-window.js';
import { plan } from '../../lambda/core/plan.js';
import { actualOf, attachment, config, desired, instanceOf, MIN, record, T0, view, vol } from './builders.js';

const WINDOW = 5 * MIN;
const windowOf = (...claims: [ago: number, count: number][]): DetachWindow => ({
  claims: claims.map(([ago, count]) => ({ at: T0 - ago, count })),
  version: 3,
});

describe('claiming detaches in the shared window', () => {
  it.each([
    { name: 'an empty window grants what the pass wants, up to its limit', window: windowOf(), wanted: 7, limit: 6, granted: 6 },
    { name: 'a pass wanting less than the limit gets all it wants', window: windowOf(), wanted: 4, limit: 6, granted: 4 },
    { name: "another pass's live claim is subtracted", window: windowOf([MIN, 4]), wanted: 7, limit: 6, granted: 2 },
    { name: 'a spent window grants nothing', window: windowOf([MIN, 6]), wanted: 3, limit: 6, granted: 0 },
    {
      name: 'an overspent window (a larger limit then) grants nothing, never a negative count',
      window: windowOf([MIN, 9]),
      wanted: 3,
      limit: 6,
      granted: 0,
    },
    { name: 'a claim exactly one window old no longer counts', window: windowOf([WINDOW, 6]), wanted: 3, limit: 6, granted: 3 },
    { name: 'a claim just inside the window still counts', window: windowOf([WINDOW - 1, 6]), wanted: 3, limit: 6, granted: 0 },
    { name: 'a claim stamped in the future (clock skew) still counts', window: windowOf([-1_000, 2]), wanted: 6, limit: 6, granted: 4 },
    { name: 'claims add up', window: windowOf([MIN, 2], [2 * MIN, 3]), wanted: 6, limit: 6, granted: 1 },
  ])('$name', ({ window, wanted, limit, granted }) => {
    expect(claimDetaches(window, { wanted, limit, windowMs: WINDOW }, T0).granted).toBe(granted);
  });

  it('the stored window keeps the live claims, adds the grant and keeps the version read (the write is conditional on it)', () => {
    const window = windowOf([WINDOW + 1, 5], [MIN, 2]);
    expect(claimDetaches(window, { wanted: 3, limit: 6, windowMs: WINDOW }, T0).next).toEqual({
      claims: [
        { at: T0 - MIN, count: 2 },
        { at: T0, count: 3 },
      ],
      version: 3,
    });
  });

  it('nothing granted: no claim is added', () => {
    expect(claimDetaches(windowOf([MIN, 6]), { wanted: 2, limit: 6, windowMs: WINDOW }, T0).next.claims).toEqual([
      { at: T0 - MIN, count: 6 },
    ]);
  });

  it('live claims: those of the last window, and those a clock ahead of ours stamped later', () => {
    expect(liveClaims(windowOf([MIN, 1], [WINDOW, 2], [-1_000, 3]), T0, WINDOW)).toEqual([
      { at: T0 - MIN, count: 1 },
      { at: T0 + 1_000, count: 3 },
    ]);
  });
});

describe('holding back what the window did not grant', () => {
  const detach = (n: number, trigger: DetachTrigger = 'unmounted'): DetachAction => ({
    kind: 'detach',
    volumeId: vol(n),
    uniqueName: `u${n}`,
    nodeName: `node-${n}`,
    instanceId: instanceOf(`node-${n}`),
    trigger,
    ec2Force: false,
    requiresUnreport: true,
    reason: 'unneeded',
  });
  const unreport = (n: number) => ({
    kind: 'unreport' as const,
    volumeId: vol(n),
    uniqueName: `u${n}`,
    nodeName: `node-${n}`,
    reason: 'before detach',
  });
  const planOf = (...actions: Plan['actions']): Plan => ({ actions, heldBack: [], massDetachLimit: 6 });

  it('keeps the first granted guarded detaches in plan order; the rest and their unreports are held back', () => {
    const p = planOf(unreport(1), detach(1), detach(2, 'instance-terminated'), unreport(3), detach(3), unreport(4), detach(4));
    const held = holdBackBeyond(p, 1, WINDOW);
    expect(held.actions).toEqual([unreport(1), detach(1), detach(2, 'instance-terminated')]);
    expect(held.heldBack.map((h) => [h.action.volumeId, h.code])).toEqual([
      [vol(3), 'mass-detach-guard'],
      [vol(4), 'mass-detach-guard'],
    ]);
    expect(held.heldBack[0]!.reason).toBe(
      'mass-detach guard: overlapping passes already detached the allowed fraction in the last 300 s; 2 detaches wait',
    );
  });

  it('all granted: the plan is unchanged', () => {
    const p = planOf(detach(1), detach(2));
    expect(holdBackBeyond(p, 2, WINDOW)).toBe(p);
  });

  it('exempt detaches (stopped, terminated, stuck, released) are neither counted nor held', () => {
    const p = planOf(detach(1, 'instance-stopped'), detach(2, 'stuck-attach'), detach(3, 'released'), detach(4));
    expect(guardedDetaches(p).map((d) => d.volumeId)).toEqual([vol(4)]);
    expect(holdBackBeyond(p, 0, WINDOW).actions).toHaveLength(3);
  });
});

describe('the plan states its per-pass limit for the window', () => {
  const attachedOn = (count: number) =>
    actualOf(...Array.from({ length: count }, (_, i) => record(vol(i + 1), [attachment(`node-${i % 3}`)])));
  const nodes = [view('node-0'), view('node-1'), view('node-2')];

  it.each([
    { name: 'more attached than the minimum: the fraction of them', attached: 12, guard: { maxFraction: 0.5, minAttached: 10 }, limit: 6 },
    { name: 'the minimum or fewer: no limit', attached: 10, guard: { maxFraction: 0.5, minAttached: 10 }, limit: undefined },
    { name: 'guard disabled: no limit', attached: 12, guard: null, limit: undefined },
  ])('$name', ({ attached, guard, limit }) => {
    const p = plan(desired([], nodes), attachedOn(attached), {}, T0, config({ massDetachGuard: guard }));
    expect(p.massDetachLimit).toBe(limit);
  });
});
