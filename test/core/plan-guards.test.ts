import { describe, expect, it } from 'vitest';
import type { DetachAction, DetachTrigger } from '../../lambda/core/actions.js';
import { massDetachGuard } from '../../lambda/core/guards.js';
import { plan } from '../../lambda/core/plan.js';
import type { InstanceState, NodeView, VolumeRecord } from '../../lambda/core/types.js';
import { like, actualOf, attachment, config, desired, instanceOf, MIN, op, record, T0, uname, view, vol, want } from './builders.js';

const kinds = (p: ReturnType<typeof plan>) =>
  p.actions.map((a) => `${a.kind}:${a.volumeId === vol(1) ? 'v1' : a.volumeId === vol(2) ? 'v2' : a.volumeId}:${a.nodeName}`);

describe('plan: incomplete input never detaches (invariant 3)', () => {
  const records = () => [
    record(vol(1), [attachment('node-a')]),
    record(vol(2), [attachment('node-b', { state: 'attaching', since: T0 - 10 * MIN })]),
    record(vol(3), [attachment('node-gone', { mounted: true })]),
  ];
  const instances = new Map<string, InstanceState>([[instanceOf('node-gone'), 'terminated']]);
  const volumes = new Map([
    [
      vol(2),
      {
        volumeId: vol(2),
        exists: true,
        attachments: [{ instanceId: instanceOf('node-b'), state: 'attaching' as const, device: '/dev/xvdaa' }],
      },
    ],
  ]);

  it('no detach of any kind, not even stuck or terminated, and no timer started; attaches still go ahead', () => {
    const p = plan(
      desired([want(vol(4), 'node-a')], [view('node-a'), view('node-b')], { complete: false }),
      actualOf(...records()),
      { instances, volumes },
      T0,
      config(),
    );
    expect(p.actions.map((a) => a.kind)).toEqual(['attach']);
    expect(p.detachRequests).toEqual([]);
    expect(p.deferred!.map((d) => d.reason)).toEqual([
      expect.stringContaining('incomplete'),
      expect.stringContaining('incomplete'),
      expect.stringContaining('incomplete'),
    ]);
  });

  it('the same input, complete, detaches all three', () => {
    const p = plan(desired([], [view('node-a'), view('node-b')]), actualOf(...records()), { instances, volumes }, T0, config());
    expect(p.actions.filter((a): a is DetachAction => a.kind === 'detach').map((a) => a.trigger)).toEqual([
      'unmounted',
      'stuck-attach',
      'instance-terminated',
    ]);
  });
});

describe('plan: targeted scope', () => {
  const nodes = [view('node-a'), view('node-b')];
  const actual = () => actualOf(record(vol(1), [attachment('node-a')]), record(vol(2), [attachment('node-b')]));

  it('detaches only on nodes whose every pod was read', () => {
    const p = plan(desired([], nodes, { scope: { volumes: [vol(1), vol(2)], nodes: ['node-b'] } }), actual(), {}, T0, config());
    expect(kinds(p)).toEqual(['unreport:v2:node-b', 'detach:v2:node-b']);
    expect(p.deferred).toEqual([]);
  });

  it('attaches and resolves what is in scope by volume or node, and nothing else', () => {
    const expired = op('attach', 'node-c', { leaseExpiresAt: T0 - 1 });
    const r3 = record(vol(3), [], { operations: { volume: expired } });
    const scope = { volumes: [vol(1)], nodes: ['node-b'] };
    const wanted = [want(vol(1), 'node-c'), want(vol(2), 'node-b'), want(vol(4), 'node-a')];
    const p = plan(desired(wanted, [...nodes, view('node-c')], { scope }), actualOf(r3), {}, T0, config());
    expect(kinds(p)).toEqual(['attach:v1:node-c', 'attach:v2:node-b']);
  });

  it('the timer is not started for nodes outside the scope', () => {
    const p = plan(desired([], nodes, { scope: { volumes: [vol(1)], nodes: [] } }), actual(), {}, T0, config());
    expect(p.actions).toEqual([]);
    expect(p.detachRequests).toEqual([]);
  });
});

describe('plan: the mass-detach guard', () => {
  /** n volumes attached one per node, none desired; the first `terminated` nodes' instances are gone. */
  function many(n: number, terminated = 0, guard = config().massDetachGuard) {
    const nodes: NodeView[] = [];
    const records: VolumeRecord[] = [];
    const instances = new Map<string, InstanceState>();
    for (let i = 1; i <= n; i++) {
      nodes.push(view(`node-${i}`, { ready: i > terminated }));
      records.push(record(vol(i), [attachment(`node-${i}`)]));
      if (i <= terminated) instances.set(instanceOf(`node-${i}`), 'terminated');
    }
    return plan(desired([], nodes), actualOf(...records), { instances }, T0, config({ massDetachGuard: guard }));
  }
  const detaches = (p: ReturnType<typeof plan>) => p.actions.filter((a) => a.kind === 'detach').length;

  it('with 10 attached (not more than 10) everything may detach', () => {
    expect(detaches(many(10))).toBe(10);
  });

  it('with 12 attached at most half detach; the rest are held back with a reason, and their unreports too', () => {
    const p = many(12);
    expect(detaches(p)).toBe(6);
    expect(p.actions.filter((a) => a.kind === 'unreport')).toHaveLength(6);
    expect(p.heldBack).toHaveLength(6);
    expect(p.heldBack[0]).toEqual({
      action: like<DetachAction>({ kind: 'detach', volumeId: vol(7) }),
      code: 'mass-detach-guard',
      reason: 'mass-detach guard: 12 of 12 attached volumes would be detached; at most 6 per pass',
    });
  });

  it('detaches of terminated instances are neither held back nor counted', () => {
    const p = many(12, 4);
    expect(detaches(p)).toBe(4 + 6);
    expect(p.heldBack.map((h) => h.action.volumeId)).toEqual([vol(11), vol(12)]);
    expect(p.heldBack[0]!.reason).toContain('8 of 12');
  });

  it('can be disabled', () => {
    expect(detaches(many(12, 0, null))).toBe(12);
  });

  describe('which detaches it counts and holds back, by trigger (12 attached: at most 6 guarded detaches)', () => {
    const detachOf = (n: number, trigger: DetachTrigger): DetachAction => ({
      kind: 'detach',
      volumeId: vol(n),
      uniqueName: uname(vol(n)),
      nodeName: `node-${n}`,
      instanceId: instanceOf(`node-${n}`),
      reason: trigger,
      trigger,
      ec2Force: trigger !== 'unmounted',
      requiresUnreport: trigger === 'unmounted',
    });
    const scenarios: { trigger: DetachTrigger; exempt: boolean }[] = [
      { trigger: 'instance-terminated', exempt: true },
      { trigger: 'instance-stopped', exempt: true },
      { trigger: 'stuck-attach', exempt: true },
      { trigger: 'unmounted', exempt: false },
      { trigger: 'out-of-service', exempt: false },
      { trigger: 'unmount-timeout', exempt: false },
    ];
    it.each(scenarios)('8 detaches triggered by $trigger: exempt $exempt', ({ trigger, exempt }) => {
      const planned = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => detachOf(n, trigger));
      const { kept, heldBack } = massDetachGuard(planned, 12, { maxFraction: 0.5, minAttached: 10 });
      expect(kept.map((d) => d.volumeId)).toEqual(planned.slice(0, exempt ? 8 : 6).map((d) => d.volumeId));
      expect(heldBack.map((h) => h.action.volumeId)).toEqual(exempt ? [] : [vol(7), vol(8)]);
    });

    it('exempt detaches do not use up the allowance of guarded ones', () => {
      const planned = [
        detachOf(1, 'instance-stopped'),
        detachOf(2, 'stuck-attach'),
        ...[3, 4, 5, 6, 7, 8, 9].map((n) => detachOf(n, 'unmounted')),
      ];
      const { kept, heldBack } = massDetachGuard(planned, 12, { maxFraction: 0.5, minAttached: 10 });
      expect(kept.map((d) => d.volumeId)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map(vol));
      expect(heldBack).toEqual([
        {
          action: planned[8],
          code: 'mass-detach-guard',
          reason: 'mass-detach guard: 7 of 12 attached volumes would be detached; at most 6 per pass',
        },
      ]);
    });
  });

  it('a configured fraction and threshold apply', () => {
    expect(massDetachGuard([], 3, { maxFraction: 0.1, minAttached: 2 })).toEqual({ kept: [], heldBack: [] });
    expect(detaches(many(5, 0, { maxFraction: 0.2, minAttached: 2 }))).toBe(1);
  });
});

describe('plan: order of actions', () => {
  it('resolves, then unreport/detach pairs, then attaches, then conflicts', () => {
    const expired = op('detach', 'node-a', { leaseExpiresAt: T0 - 1 });
    const actual = actualOf(
      record(vol(1), [attachment('node-b')]),
      record(vol(2), [attachment('node-a')]),
      record(vol(9), [], { multiAttach: true, operations: { 'node:node-a': expired } }),
    );
    const p = plan(desired([want(vol(1), 'node-a'), want(vol(3), 'node-b')], [view('node-a'), view('node-b')]), actual, {}, T0, config());
    expect(kinds(p)).toEqual([
      `resolve:${vol(9)}:node-a`,
      'unreport:v1:node-b',
      'detach:v1:node-b',
      'unreport:v2:node-a',
      'detach:v2:node-a',
      `attach:${vol(3)}:node-b`,
      'multiAttachConflict:v1:node-a',
    ]);
  });

  it('an empty world plans nothing', () => {
    expect(plan(desired([], []), new Map(), {}, T0, config())).toEqual({ actions: [], heldBack: [], deferred: [], detachRequests: [] });
  });
});
