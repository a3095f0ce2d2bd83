import { describe, expect, it } from 'vitest';
import type { AttachAction, MultiAttachConflictAction } from '../../lambda/core/actions.js';
import { plan } from '../../lambda/core/plan.js';
import type { DesiredAttachment, InstanceState, Observations, VolumeRecord } from '../../lambda/core/types.js';
import {
  like,
  matching,
  actualOf,
  attachment,
  config,
  desired,
  instanceOf,
  MIN,
  op,
  record,
  T0,
  uname,
  view,
  vol,
  want,
} from './builders.js';

const V = vol(1);
const NODES = [view('node-a'), view('node-b'), view('node-c')];

function attachPlan(wanted: DesiredAttachment[], records: VolumeRecord[] = [], observations: Observations = {}) {
  return plan(desired(wanted, NODES), actualOf(...records), observations, T0, config());
}

const attaches = (p: ReturnType<typeof plan>) => p.actions.filter((a): a is AttachAction => a.kind === 'attach');
const conflicts = (p: ReturnType<typeof plan>) => p.actions.filter((a): a is MultiAttachConflictAction => a.kind === 'multiAttachConflict');

describe('plan: attaches', () => {
  it("a desired volume not yet attached is attached to the node's instance, with its pods", () => {
    const p = attachPlan([want(V, 'node-a')]);
    expect(p.actions).toEqual([
      {
        kind: 'attach',
        volumeId: V,
        uniqueName: uname(V),
        nodeName: 'node-a',
        instanceId: instanceOf('node-a'),
        multiAttach: false,
        pods: [{ namespace: 'default', name: 'pod-on-node-a', uid: 'uid-node-a' }],
        reason: 'needed by pod(s) default/pod-on-node-a on node node-a',
      },
    ]);
  });

  it.each<[string, VolumeRecord, Observations, RegExp]>([
    ['an uncertain attachment is attached again', record(V, [attachment('node-a', { state: 'uncertain' })]), {}, /uncertain/],
    [
      'a detaching attachment desired again is attached again',
      record(V, [attachment('node-a', { state: 'detaching' })]),
      {},
      /desired again while detaching/,
    ],
    [
      'an attachment EC2 no longer shows is attached again',
      record(V, [attachment('node-a')]),
      { volumes: new Map([[V, { volumeId: V, exists: true, attachments: [] }]]) },
      /EC2 no longer shows it attached/,
    ],
  ])('%s', (_name, r, observations, reason) => {
    const p = attachPlan([want(V, 'node-a')], [r], observations);
    expect(attaches(p)).toEqual([like<AttachAction>({ nodeName: 'node-a', reason: matching(reason) })]);
  });

  it.each<[string, VolumeRecord]>([
    ['an attached volume needs nothing', record(V, [attachment('node-a')])],
    ['an attach in progress needs nothing', record(V, [attachment('node-a', { state: 'attaching', since: T0 - 10_000 })])],
  ])('%s', (_name, r) => {
    expect(attaches(attachPlan([want(V, 'node-a')], [r]))).toEqual([]);
  });

  it('a volume still attached to a previous instance of the node waits for that detach', () => {
    const r = record(V, [attachment('node-a', { instanceId: 'i-0000000000000dead' })]);
    const p = attachPlan([want(V, 'node-a')], [r]);
    expect(attaches(p)).toEqual([]);
    expect(p.actions).toEqual([
      expect.objectContaining({ kind: 'unreport' }),
      expect.objectContaining({ kind: 'detach', instanceId: 'i-0000000000000dead' }),
    ]);
    expect(p.deferred).toContainEqual({
      volumeId: V,
      nodeName: 'node-a',
      operation: 'attach',
      code: 'previous-instance',
      reason: 'attached to i-0000000000000dead, a previous instance of node node-a: detached first',
    });
  });

  it.each<[InstanceState | 'missing', boolean]>([
    ['terminated', false],
    ['missing', false],
    ['shutting-down', false],
    ['stopped', true],
    ['running', true],
    ['pending', true],
  ])('attach to an instance EC2 reports %s: planned %s', (state, planned) => {
    const p = attachPlan([want(V, 'node-a')], [], { instances: new Map([[instanceOf('node-a'), state]]) });
    expect(attaches(p)).toHaveLength(planned ? 1 : 0);
    if (!planned)
      expect(p.deferred).toEqual([
        {
          volumeId: V,
          nodeName: 'node-a',
          operation: 'attach',
          code: 'instance-not-running',
          reason: `attach waits: EC2 reports instance ${instanceOf('node-a')} ${state}`,
        },
      ]);
  });

  it('a pending operation blocks the attach; so does an active attach backoff', () => {
    const pending = attachPlan([want(V, 'node-a')], [record(V, [], { operations: { volume: op('detach', 'node-a') } })]);
    expect(pending.actions).toEqual([]);
    expect(pending.deferred).toEqual([
      {
        volumeId: V,
        nodeName: 'node-a',
        operation: 'attach',
        code: 'lock-held',
        reason: matching(/^attach waits: detach operation op-detach-node-a on node node-a holds the lock/),
      },
    ]);
    const backoff = { 'attach:node-a': { failures: 1, notBefore: T0 + 500, lastError: 'throttled' } };
    const backingOff = attachPlan([want(V, 'node-a')], [record(V, [], { backoff })]);
    expect(attaches(backingOff)).toEqual([]);
    expect(backingOff.deferred).toEqual([
      {
        volumeId: V,
        nodeName: 'node-a',
        operation: 'attach',
        code: 'backing-off',
        reason: matching(/^attach waits: attach is backing off after 1 failure\(s\)/),
      },
    ]);
  });

  it('a multi-attach volume attaches to several nodes in one pass', () => {
    const p = attachPlan(
      [want(V, 'node-a', { multiAttach: true }), want(V, 'node-b', { multiAttach: true })],
      [record(V, [attachment('node-c')], { multiAttach: true })],
    );
    expect(attaches(p).map((a) => [a.nodeName, a.multiAttach])).toEqual([
      ['node-a', true],
      ['node-b', true],
    ]);
    expect(conflicts(p)).toEqual([]);
  });

  it('a multi-attach volume is blocked only by an operation on the same node', () => {
    const operations = { 'node:node-b': op('attach', 'node-b') };
    const p = attachPlan(
      [want(V, 'node-a', { multiAttach: true }), want(V, 'node-b', { multiAttach: true })],
      [record(V, [], { multiAttach: true, operations })],
    );
    expect(attaches(p).map((a) => a.nodeName)).toEqual(['node-a']);
  });

  it('a volume the record knows as exclusive stays exclusive even if the PV now says RWX', () => {
    const p = attachPlan([want(V, 'node-a', { multiAttach: true })], [record(V, [attachment('node-b')], { multiAttach: false })]);
    expect(attaches(p)).toEqual([]);
    expect(conflicts(p)).toHaveLength(1);
  });
});

describe('plan: Multi-Attach conflicts for exclusive volumes', () => {
  const podB = { namespace: 'default', name: 'db-0', uid: 'u0' };
  const podA = { namespace: 'default', name: 'db-1', uid: 'u1' };

  it.each<[string, VolumeRecord | undefined, Observations, string[]]>([
    ['attached to another node', record(V, [attachment('node-b')]), {}, ['node-b']],
    ['attaching to another node', record(V, [attachment('node-b', { state: 'attaching', since: T0 })]), {}, ['node-b']],
    ['uncertain on another node', record(V, [attachment('node-b', { state: 'uncertain' })]), {}, ['node-b']],
    ['detaching from another node', record(V, [attachment('node-b', { state: 'detaching' })]), {}, ['node-b']],
    ['with an operation on another node', record(V, [], { operations: { volume: op('attach', 'node-c') } }), {}, ['node-c']],
    [
      'attached elsewhere per the record even though EC2 says gone (the record is corrected first)',
      record(V, [attachment('node-b')]),
      { volumes: new Map([[V, { volumeId: V, exists: true, attachments: [] }]]) },
      ['node-b'],
    ],
    [
      "attached per EC2 to a known node's instance the record does not list",
      undefined,
      {
        volumes: new Map([
          [V, { volumeId: V, exists: true, attachments: [{ instanceId: instanceOf('node-c'), state: 'attached', device: '/dev/xvdaa' }] }],
        ]),
      },
      ['node-c'],
    ],
    [
      'attached per EC2 to an unknown instance',
      undefined,
      {
        volumes: new Map([
          [V, { volumeId: V, exists: true, attachments: [{ instanceId: 'i-0000000000000f00d', state: 'busy', device: '/dev/xvdaa' }] }],
        ]),
      },
      ['instance i-0000000000000f00d'],
    ],
  ])('not attached when %s', (_name, r, observations, attachedTo) => {
    const p = attachPlan([want(V, 'node-a')], r ? [r] : [], observations);
    expect(attaches(p)).toEqual([]);
    expect(conflicts(p)).toEqual([expect.objectContaining({ volumeId: V, nodeName: 'node-a', attachedTo })]);
  });

  it('EC2 showing the volume on the target instance itself is no conflict', () => {
    const observations = {
      volumes: new Map([
        [
          V,
          {
            volumeId: V,
            exists: true,
            attachments: [{ instanceId: instanceOf('node-a'), state: 'attached' as const, device: '/dev/xvdaa' }],
          },
        ],
      ]),
    };
    expect(conflicts(attachPlan([want(V, 'node-a')], [], observations))).toEqual([]);
  });

  it("warns the waiting pods with upstream's text naming the pods that hold the volume", () => {
    const p = attachPlan(
      [want(V, 'node-a', { pods: [podA], pvName: 'pvc-data' }), want(V, 'node-b', { pods: [podB], pvName: 'pvc-data' })],
      [record(V, [attachment('node-b')])],
    );
    expect(conflicts(p)).toEqual([
      {
        kind: 'multiAttachConflict',
        volumeId: V,
        uniqueName: uname(V),
        nodeName: 'node-a',
        attachedTo: ['node-b'],
        pods: [podA],
        event: {
          type: 'Warning',
          reason: 'FailedAttachVolume',
          message: 'Multi-Attach error for volume "pvc-data" Volume is already used by pod(s) db-0',
        },
        podEvents: [{ pod: podA, message: 'Multi-Attach error for volume "pvc-data" Volume is already used by pod(s) db-0' }],
        reason: 'exclusive volume is attached or being attached to node-b',
      },
    ]);
  });

  it('words the event per waiting pod: other namespaces are counted, not named', () => {
    const other = { namespace: 'team-b', name: 'reader', uid: 'u2' };
    const p = attachPlan(
      [want(V, 'node-a', { pods: [podA, other], pvName: 'pv' }), want(V, 'node-b', { pods: [podB], pvName: 'pv' })],
      [record(V, [attachment('node-b')])],
    );
    expect(conflicts(p)[0]!.podEvents!.map((e) => e.message)).toEqual([
      'Multi-Attach error for volume "pv" Volume is already used by pod(s) db-0',
      'Multi-Attach error for volume "pv" Volume is already used by 1 pod(s) in different namespaces',
    ]);
  });

  it('says "exclusively attached" when no pod elsewhere needs the volume any more', () => {
    const p = attachPlan([want(V, 'node-a', { pvName: 'pv' })], [record(V, [attachment('node-b', { mounted: true })])]);
    expect(conflicts(p)[0]!.event.message).toBe(
      'Multi-Attach error for volume "pv" Volume is already exclusively attached to one node and can\'t be attached to another',
    );
  });

  it('a rescheduled pod: the old node detaches first, the new node gets the conflict until then', () => {
    const p = attachPlan([want(V, 'node-a')], [record(V, [attachment('node-b')])]);
    expect(p.actions.map((a) => `${a.kind}:${a.nodeName}`)).toEqual(['unreport:node-b', 'detach:node-b', 'multiAttachConflict:node-a']);
  });

  it('an exclusive volume wanted on two nodes is attached to one; the other gets the conflict', () => {
    const p = attachPlan([want(V, 'node-a'), want(V, 'node-b')]);
    expect(attaches(p).map((a) => a.nodeName)).toEqual(['node-a']);
    expect(conflicts(p)).toEqual([expect.objectContaining({ nodeName: 'node-b', attachedTo: ['node-a'] })]);
    expect(conflicts(p)[0]!.event.message).toContain('Volume is already used by pod(s) pod-on-node-a');
  });
});

describe('plan: expired operations', () => {
  it('an operation past its lease is resolved first and still holds its lock this pass', () => {
    const expired = op('attach', 'node-a', { id: 'op-old', leaseExpiresAt: T0 - MIN });
    const r = record(V, [attachment('node-a', { state: 'attaching', since: T0 - 20 * MIN })], { operations: { volume: expired } });
    const ec2: Observations = {
      volumes: new Map([
        [V, { volumeId: V, exists: true, attachments: [{ instanceId: instanceOf('node-a'), state: 'attaching', device: '/dev/xvdaa' }] }],
      ]),
    };
    const p = attachPlan([want(V, 'node-a')], [r], ec2);
    expect(p.actions).toEqual([
      {
        kind: 'resolve',
        volumeId: V,
        uniqueName: uname(V),
        nodeName: 'node-a',
        operation: expired,
        reason: 'attach operation op-old lost its lease at 2025-12-31T23:59:00.000Z: ask EC2 what happened',
      },
    ]);
    expect(p.deferred).toEqual([
      {
        volumeId: V,
        nodeName: 'node-a',
        operation: 'detach',
        code: 'lease-expired',
        reason: 'detach waits: attach operation op-old on node node-a has an expired lease and is resolved first',
      },
    ]);
  });

  // A lease is live strictly before its end (isLive): at the end instant it is someone else's to resolve.
  it.each([
    { leaseEnds: 'a millisecond from now', at: T0 + 1, resolved: false },
    { leaseEnds: 'exactly now', at: T0, resolved: true },
    { leaseEnds: 'a millisecond ago', at: T0 - 1, resolved: true },
  ])('an operation whose lease ends $leaseEnds: resolved $resolved', ({ at, resolved }) => {
    const r = record(V, [], { operations: { volume: op('attach', 'node-a', { leaseExpiresAt: at }) } });
    expect(attachPlan([want(V, 'node-a')], [r]).actions.map((a) => a.kind)).toEqual(resolved ? ['resolve'] : []);
  });
});
