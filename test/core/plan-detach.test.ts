import { describe, expect, it } from 'vitest';
import type { DetachAction } from '../../lambda/core/actions.js';
import type { PlanConfig } from '../../lambda/core/config.js';
import { plan } from '../../lambda/core/plan.js';
import type { WaitCode } from '../../lambda/core/reasons.js';
import type { InstanceState, NodeView, Observations, VolumeRecord } from '../../lambda/core/types.js';
import {
  matching,
  actualOf,
  attachment,
  config,
  desired,
  instanceOf,
  MIN,
  record,
  T0,
  uname,
  view,
  vol,
  want,
  type AttachmentOptions,
} from './builders.js';

const V = vol(1);

interface Row {
  /** Node views the pass sees; node-a is the attachment's node. Omitted node-a: its object is gone. */
  nodes?: NodeView[];
  attachment?: AttachmentOptions;
  instance?: InstanceState | 'missing';
  config?: Partial<PlanConfig>;
}

/** vol(1) attached to node-a and wanted nowhere. */
function detachPlan(row: Row) {
  const observations: Observations = row.instance ? { instances: new Map([[instanceOf('node-a'), row.instance]]) } : {};
  const nodes = row.nodes ?? [view('node-a')];
  return plan(desired([], nodes), actualOf(record(V, [attachment('node-a', row.attachment)])), observations, T0, config(row.config));
}

const detachOf = (p: ReturnType<typeof plan>) => p.actions.find((a): a is DetachAction => a.kind === 'detach');

describe('plan: when an unneeded attachment is detached', () => {
  const mountedNotReady = { nodes: [view('node-a', { ready: false, inUse: [V] })] };
  it.each<[string, Row, { trigger: DetachAction['trigger']; ec2Force: boolean; requiresUnreport: boolean }]>([
    ['not mounted on a Ready node: detach after unreport', {}, { trigger: 'unmounted', ec2Force: false, requiresUnreport: true }],
    [
      'mounted but the node is out of service: forced detach at once, still only once the node no longer lists it',
      { nodes: [view('node-a', { inUse: [V], outOfService: true, ready: false })] },
      { trigger: 'out-of-service', ec2Force: true, requiresUnreport: true },
    ],
    [
      'mounted on a not-Ready node past maxWaitForUnmount: timeout detach, not EC2-forced',
      { ...mountedNotReady, attachment: { detachRequestedAt: T0 - 7 * MIN } },
      { trigger: 'unmount-timeout', ec2Force: false, requiresUnreport: true },
    ],
    [
      'a shorter maxWaitForUnmount is honoured',
      { ...mountedNotReady, attachment: { detachRequestedAt: T0 - 2 * MIN }, config: { maxWaitForUnmountMs: MIN } },
      { trigger: 'unmount-timeout', ec2Force: false, requiresUnreport: true },
    ],
    [
      'mounted on a not-Ready node whose instance is stopped: forced detach',
      { ...mountedNotReady, instance: 'stopped' },
      { trigger: 'instance-stopped', ec2Force: true, requiresUnreport: true },
    ],
    [
      'mounted on a not-Ready node whose instance is terminated: forced detach',
      { ...mountedNotReady, instance: 'terminated' },
      { trigger: 'instance-terminated', ec2Force: true, requiresUnreport: true },
    ],
    [
      'node object gone and EC2 no longer knows the instance: forced detach',
      { nodes: [], attachment: { mounted: true }, instance: 'missing' },
      { trigger: 'instance-terminated', ec2Force: true, requiresUnreport: true },
    ],
    [
      'node object gone, last seen unmounted: detach',
      { nodes: [], attachment: { mounted: false } },
      { trigger: 'unmounted', ec2Force: false, requiresUnreport: true },
    ],
    [
      'node object gone, mounted, instance running, past the timeout: timeout detach',
      { nodes: [], attachment: { mounted: true, detachRequestedAt: T0 - 7 * MIN }, instance: 'running' },
      { trigger: 'unmount-timeout', ec2Force: false, requiresUnreport: true },
    ],
    [
      'node name now belongs to another instance: the old attachment is judged on its own, not by the new kubelet',
      { nodes: [view('node-a', { instanceId: 'i-0000000000000abcd', inUse: [V] })], attachment: { mounted: false } },
      { trigger: 'unmounted', ec2Force: false, requiresUnreport: true },
    ],
    [
      'a node whose providerID is unreadable still speaks for the attachment',
      { nodes: [view('node-a', { instanceId: null })] },
      { trigger: 'unmounted', ec2Force: false, requiresUnreport: true },
    ],
    [
      'stopping instance with the volume unmounted: detach normally',
      { instance: 'stopping' },
      { trigger: 'unmounted', ec2Force: false, requiresUnreport: true },
    ],
    [
      'an uncertain attachment no longer needed is detached',
      { attachment: { state: 'uncertain' } },
      { trigger: 'unmounted', ec2Force: false, requiresUnreport: true },
    ],
    [
      'a detaching attachment is detached again (EC2 treats it as idempotent)',
      { attachment: { state: 'detaching' } },
      { trigger: 'unmounted', ec2Force: false, requiresUnreport: true },
    ],
  ])('%s', (_name, row, expected) => {
    const p = detachPlan(row);
    const detach = detachOf(p);
    expect(detach).toMatchObject({ volumeId: V, uniqueName: uname(V), nodeName: 'node-a', instanceId: instanceOf('node-a'), ...expected });
    expect(detach!.reason).not.toBe('');
    const unreportAt = p.actions.findIndex((a) => a.kind === 'unreport');
    expect(p.actions[unreportAt]).toMatchObject({ kind: 'unreport', volumeId: V, nodeName: 'node-a' });
    expect(p.actions[unreportAt + 1]).toBe(detach);
    expect(p.heldBack).toEqual([]);
  });
});

describe('plan: when an unneeded attachment waits', () => {
  const mountedNotReady = [view('node-a', { ready: false, inUse: [V] })];
  it.each<[string, Row, RegExp, WaitCode]>([
    [
      'mounted on a Ready node: never detached',
      { nodes: [view('node-a', { inUse: [V] })], attachment: { detachRequestedAt: T0 - 60 * MIN } },
      /still mounted on Ready node node-a/,
      'mounted-on-ready-node',
    ],
    [
      'mounted on a Ready node even when EC2 says terminated: the node turns NotReady first',
      { nodes: [view('node-a', { inUse: [V] })], instance: 'terminated' },
      /still mounted on Ready node/,
      'mounted-on-ready-node',
    ],
    [
      'mounted on a not-Ready node before maxWaitForUnmount',
      { nodes: mountedNotReady, attachment: { detachRequestedAt: T0 - 5 * MIN } },
      /not-Ready node node-a; detach when unmounted or in 60 s/,
      'waiting-for-unmount-timeout',
    ],
    [
      'mounted on a not-Ready node with the timeout disabled',
      { nodes: mountedNotReady, attachment: { detachRequestedAt: T0 - 60 * MIN }, config: { maxWaitForUnmountMs: null } },
      /force detach on timeout is disabled/,
      'force-detach-disabled',
    ],
    [
      'mounted on a not-Ready node whose instance is stopping',
      { nodes: mountedNotReady, instance: 'stopping' },
      /not-Ready node node-a/,
      'waiting-for-unmount-timeout',
    ],
    [
      'mounted on a not-Ready node whose instance is shutting down',
      { nodes: mountedNotReady, instance: 'shutting-down' },
      /not-Ready node node-a/,
      'waiting-for-unmount-timeout',
    ],
    [
      'node object gone but its instance still runs: treated as not Ready, timeout applies',
      { nodes: [], attachment: { mounted: true, detachRequestedAt: T0 - MIN }, instance: 'running' },
      /node node-a whose object is gone/,
      'waiting-for-unmount-timeout',
    ],
    [
      'attachment on an unmanaged node: not ours to detach',
      { nodes: [view('node-a', { managed: false })] },
      /not managed by this controller/,
      'node-unmanaged',
    ],
    [
      'the first request starts the timer: waits the full maxWaitForUnmount',
      { nodes: mountedNotReady },
      /in 360 s/,
      'waiting-for-unmount-timeout',
    ],
  ])('%s', (_name, row, why, code) => {
    const p = detachPlan(row);
    expect(p.actions).toEqual([]);
    expect(p.deferred).toEqual([{ volumeId: V, nodeName: 'node-a', operation: 'detach', code, reason: matching(why) }]);
  });
});

describe('plan: the detach request timer', () => {
  it('persists now as the request time when none is recorded', () => {
    expect(detachPlan({}).detachRequests).toEqual([{ volumeId: V, nodeName: 'node-a', detachRequestedAt: T0 }]);
  });

  it('leaves a recorded request time alone', () => {
    expect(detachPlan({ attachment: { detachRequestedAt: T0 - MIN } }).detachRequests).toEqual([]);
  });

  it('clears the request time when the volume is desired again (upstream ResetDetachRequestTime)', () => {
    const p = plan(
      desired([want(V, 'node-a')], [view('node-a')]),
      actualOf(record(V, [attachment('node-a', { detachRequestedAt: T0 - MIN })])),
      {},
      T0,
      config(),
    );
    expect(p.actions).toEqual([]);
    expect(p.detachRequests).toEqual([{ volumeId: V, nodeName: 'node-a', detachRequestedAt: null }]);
  });
});

describe('plan: stuck attaches', () => {
  const ec2Shows = (state: 'attaching' | 'attached', attachTime?: number): Observations => ({
    volumes: new Map([
      [
        V,
        {
          volumeId: V,
          exists: true,
          attachments: [
            { instanceId: instanceOf('node-a'), state, device: '/dev/xvdaa', ...(attachTime === undefined ? {} : { attachTime }) },
          ],
        },
      ],
    ]),
  });
  const stuck = (since: number, wanted: boolean, observations: Observations = ec2Shows('attaching')) =>
    plan(
      desired(wanted ? [want(V, 'node-a')] : [], [view('node-a')]),
      actualOf(record(V, [attachment('node-a', { state: 'attaching', since, reported: false })])),
      observations,
      T0,
      config(),
    );

  it.each([[true], [false]])('EC2 attaching for more than 90 s is detached without unreport (desired: %s)', (wanted) => {
    const p = stuck(T0 - 91_000, wanted);
    expect(p.actions).toEqual([
      expect.objectContaining({ kind: 'detach', trigger: 'stuck-attach', ec2Force: false, requiresUnreport: false }),
    ]);
  });

  it("the clock starts at EC2's AttachTime when EC2 gives one", () => {
    expect(stuck(T0 - 5 * MIN, true, ec2Shows('attaching', T0 - 60_000)).actions).toEqual([]);
    expect(stuck(T0 - 10_000, true, ec2Shows('attaching', T0 - 91_000)).actions).toEqual([
      expect.objectContaining({ kind: 'detach', trigger: 'stuck-attach' }),
    ]);
  });

  it.each([
    ['EC2 was not asked this pass', {}],
    ['EC2 shows it attached (the record is stale)', ec2Shows('attached')],
  ])('a record attaching for long is never detached on its own word: %s', (_name, observations) => {
    const p = stuck(T0 - 10 * MIN, true, observations);
    expect(p.actions).toEqual([]);
    expect(p.deferred).toEqual([
      {
        volumeId: V,
        nodeName: 'node-a',
        operation: 'detach',
        code: 'attach-unverified',
        reason: 'attach in progress; a stuck attach is judged only on what EC2 says this pass',
      },
    ]);
  });

  const stuckOn = (nodeView: NodeView, reported: boolean) =>
    plan(
      desired([want(V, 'node-a')], [nodeView]),
      actualOf(record(V, [attachment('node-a', { state: 'attaching', since: T0 - 2 * MIN, reported })])),
      ec2Shows('attaching'),
      T0,
      config(),
    );

  it('a stuck attach the kubelet waits for (in volumesInUse) is still retried: never reported, it cannot be mounted', () => {
    expect(stuckOn(view('node-a', { inUse: [V] }), false).actions).toEqual([
      expect.objectContaining({ kind: 'detach', trigger: 'stuck-attach' }),
    ]);
  });

  it('a stuck attach that was somehow reported is unreported first', () => {
    expect(stuckOn(view('node-a'), true).actions).toEqual([
      expect.objectContaining({ kind: 'unreport' }),
      expect.objectContaining({ kind: 'detach', trigger: 'stuck-attach', requiresUnreport: true }),
    ]);
  });

  it('a stuck attach that was reported and is mounted on a Ready node waits', () => {
    const p = stuckOn(view('node-a', { inUse: [V] }), true);
    expect(p.actions).toEqual([]);
    expect(p.deferred![0]!.reason).toBe('attach stuck but already reported and mounted on Ready node node-a');
  });

  it('attaching for less than 90 s is left to finish', () => {
    const p = stuck(T0 - 89_000, false);
    expect(p.actions).toEqual([]);
    expect(p.deferred).toEqual([
      { volumeId: V, nodeName: 'node-a', operation: 'detach', code: 'attach-in-progress', reason: 'attach in progress' },
    ]);
    expect(p.detachRequests).toEqual([]);
  });
});

describe('plan: EC2 observations correct the actual state', () => {
  const observed = (attachments: { instanceId: string; state: 'attached' | 'detached' }[], exists = true): Observations => ({
    volumes: new Map([[V, { volumeId: V, exists, attachments: attachments.map((a) => ({ ...a, device: '/dev/xvdaa' })) }]]),
  });
  it.each<[string, Observations]>([
    ['EC2 shows no attachment to the instance', observed([])],
    ['EC2 shows the attachment detached', observed([{ instanceId: instanceOf('node-a'), state: 'detached' }])],
    ['EC2 shows it attached to another instance only', observed([{ instanceId: 'i-0000000000000beef', state: 'attached' }])],
    ['EC2 says the volume no longer exists', observed([], false)],
  ])('an attachment EC2 says is gone is not detached again: %s', (_name, observations) => {
    const p = plan(desired([], [view('node-a')]), actualOf(record(V, [attachment('node-a')])), observations, T0, config());
    expect(p.actions).toEqual([]);
  });

  it('an attachment EC2 confirms is detached as usual', () => {
    const p = plan(
      desired([], [view('node-a')]),
      actualOf(record(V, [attachment('node-a')])),
      observed([{ instanceId: instanceOf('node-a'), state: 'attached' }]),
      T0,
      config(),
    );
    expect(detachOf(p)).toBeDefined();
  });
});

describe('plan: locks and backoff hold detaches back', () => {
  const base = (o: Partial<VolumeRecord>, multiAttach = false) => {
    const r = { ...record(V, [attachment('node-a'), attachment('node-b')], { multiAttach }), ...o };
    return plan(desired([], [view('node-a'), view('node-b')]), actualOf(r), {}, T0, config());
  };

  it('a pending operation on an exclusive volume blocks every new operation on it', () => {
    const p = base({
      operations: {
        volume: {
          id: 'op-1',
          kind: 'attach',
          nodeName: 'node-c',
          instanceId: instanceOf('node-c'),
          startedAt: T0 - MIN,
          leaseExpiresAt: T0 + MIN,
        },
      },
    });
    expect(p.actions).toEqual([]);
    expect(p.deferred!.map((d) => d.reason)).toEqual([
      expect.stringMatching(/^detach waits: attach operation op-1 on node node-c holds the lock until 2026-01-01T00:01:00.000Z$/),
      expect.stringMatching(/^detach waits: attach operation op-1/),
    ]);
  });

  it('an exclusive volume gets one operation per pass', () => {
    const p = base({});
    expect(p.actions.filter((a) => a.kind === 'detach').map((a) => a.nodeName)).toEqual(['node-a']);
    expect(p.deferred).toEqual([
      {
        volumeId: V,
        nodeName: 'node-b',
        operation: 'detach',
        code: 'planned-this-pass',
        reason: 'detach waits: another operation on this volume is already planned in this pass',
      },
    ]);
  });

  it('a multi-attach volume locks per node: both nodes detach, a pending operation on one blocks only it', () => {
    expect(base({}, true).actions.filter((a) => a.kind === 'detach')).toHaveLength(2);
    const p = base(
      {
        operations: {
          'node:node-a': {
            id: 'op-1',
            kind: 'detach',
            nodeName: 'node-a',
            instanceId: instanceOf('node-a'),
            startedAt: T0,
            leaseExpiresAt: T0 + MIN,
          },
        },
      },
      true,
    );
    expect(p.actions.filter((a) => a.kind === 'detach').map((a) => a.nodeName)).toEqual(['node-b']);
  });

  it('an active detach backoff blocks that detach; an expired one does not', () => {
    const backoff = (notBefore: number) => ({ 'detach:node-a': { failures: 3, notBefore, lastError: 'IncorrectState' } });
    const blocked = base({ backoff: backoff(T0 + 1) }, true);
    expect(blocked.actions.filter((a) => a.kind === 'detach').map((a) => a.nodeName)).toEqual(['node-b']);
    expect(blocked.deferred![0]!.reason).toBe(
      'detach waits: detach is backing off after 3 failure(s) until 2026-01-01T00:00:00.001Z: IncorrectState',
    );
    expect(base({ backoff: backoff(T0) }, true).actions.filter((a) => a.kind === 'detach')).toHaveLength(2);
  });
});
