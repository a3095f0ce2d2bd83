/**
 * Property-based checks of DESIGN §11 on random clusters, random actual states and random EC2
 * observations: whatever the inputs, the plan and the node reports keep the safety invariants.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DetachAction } from '../../lambda/core/actions.js';
import { plan } from '../../lambda/core/plan.js';
import { nodeReports } from '../../lambda/core/report.js';
import type { ActualAttachment, DesiredState, NodeView, Observations, Operation, VolumeRecord } from '../../lambda/core/types.js';
import { actualOf, config, desired, instanceOf, MIN, T0, uname, vol, want } from './builders.js';
import { coveredRecords, coveredScope } from '../../lambda/core/coverage.js';

const NODE_NAMES = ['n0', 'n1', 'n2', 'n3'];
const VOLUMES = [vol(1), vol(2), vol(3)];
const STATES = ['attaching', 'attached', 'detaching', 'uncertain'] as const;
const INSTANCE_STATES = ['pending', 'running', 'stopping', 'stopped', 'shutting-down', 'terminated', 'missing'] as const;
const time = fc.integer({ min: T0 - 30 * MIN, max: T0 + 30 * MIN });

const nodeArb = (name: string) =>
  fc
    .record({
      exists: fc.boolean(),
      managed: fc.boolean(),
      ready: fc.boolean(),
      outOfService: fc.boolean(),
      replaced: fc.integer({ min: 0, max: 9 }),
      inUse: fc.subarray(VOLUMES),
    })
    .map((n): NodeView | undefined =>
      n.exists
        ? {
            name,
            instanceId: n.replaced === 0 ? 'i-0000000000000beef' : instanceOf(name),
            managed: n.managed || n.replaced > 3,
            ready: n.ready,
            outOfService: n.outOfService,
            volumesInUse: n.inUse.map(uname),
            volumesAttached: n.inUse.map((v) => ({ name: uname(v), devicePath: '/dev/xvdaa' })),
          }
        : undefined,
    );

const attachmentArb = (nodeName: string) =>
  fc
    .record({
      state: fc.constantFrom(...STATES),
      mounted: fc.boolean(),
      reported: fc.boolean(),
      since: time,
      detachRequestedAt: fc.option(time, { nil: undefined }),
      otherInstance: fc.integer({ min: 0, max: 9 }),
    })
    .map(({ otherInstance, detachRequestedAt, ...a }): ActualAttachment => ({
      ...a,
      nodeName,
      instanceId: otherInstance === 0 ? 'i-0000000000000dead' : instanceOf(nodeName),
      device: '/dev/xvdaa',
      ...(detachRequestedAt === undefined ? {} : { detachRequestedAt }),
    }));

const recordArb = (volumeId: string) =>
  fc
    .record({
      multiAttach: fc.boolean(),
      attachments: fc.subarray(NODE_NAMES).chain((names) => fc.tuple(...names.map(attachmentArb))),
      operation: fc.option(
        fc.record({
          kind: fc.constantFrom('attach' as const, 'detach' as const),
          nodeName: fc.constantFrom(...NODE_NAMES),
          leaseExpiresAt: time,
        }),
        { nil: undefined },
      ),
      backoffUntil: fc.option(time, { nil: undefined }),
    })
    .map((r): VolumeRecord => {
      const operations: Record<string, Operation> = {};
      if (r.operation) {
        const key = r.multiAttach ? `node:${r.operation.nodeName}` : 'volume';
        operations[key] = { id: 'op', ...r.operation, instanceId: instanceOf(r.operation.nodeName), startedAt: T0 - MIN };
      }
      return {
        volumeId,
        uniqueName: uname(volumeId),
        accessModes: [],
        multiAttach: r.multiAttach,
        attachments: Object.fromEntries(r.attachments.map((a) => [a.nodeName, a])),
        operations,
        backoff:
          r.backoffUntil === undefined ? {} : { [`attach:${NODE_NAMES[0]}`]: { failures: 1, notBefore: r.backoffUntil, lastError: 'x' } },
        version: 1,
      };
    });

const worldArb = fc
  .record({
    nodes: fc.tuple(...NODE_NAMES.map(nodeArb)),
    wanted: fc.subarray(VOLUMES.flatMap((v) => NODE_NAMES.map((n) => [v, n] as const))),
    multiAttach: fc.tuple(...VOLUMES.map(() => fc.boolean())),
    records: fc.tuple(...VOLUMES.map((v) => fc.option(recordArb(v), { nil: undefined }))),
    instances: fc.array(fc.tuple(fc.constantFrom(...NODE_NAMES), fc.constantFrom(...INSTANCE_STATES)), { maxLength: 4 }),
    ec2Gone: fc.subarray(VOLUMES),
    complete: fc.boolean(),
    scope: fc.option(fc.record({ volumes: fc.subarray(VOLUMES), nodes: fc.subarray(NODE_NAMES) }), { nil: undefined }),
    maxWait: fc.constantFrom(null, 0, 6 * MIN),
    guard: fc.constantFrom(null, { maxFraction: 0.5, minAttached: 2 }),
  })
  .map((w) => {
    const views = w.nodes.filter((n): n is NodeView => n !== undefined);
    const usable = new Set(views.filter((n) => n.managed && n.instanceId).map((n) => n.name));
    const attachments = w.wanted
      .filter(([, n]) => usable.has(n))
      .map(([v, n]) =>
        want(v, n, { multiAttach: w.multiAttach[VOLUMES.indexOf(v)], instanceId: views.find((x) => x.name === n)!.instanceId }),
      );
    const state: DesiredState = desired(attachments, views, { complete: w.complete, ...(w.scope ? { scope: w.scope } : {}) });
    const actual = actualOf(...w.records.filter((r): r is VolumeRecord => r !== undefined));
    const observations: Observations = {
      instances: new Map(w.instances.map(([n, s]) => [instanceOf(n), s])),
      volumes: new Map(w.ec2Gone.map((v) => [v, { volumeId: v, exists: true, attachments: [] }])),
    };
    return { state, actual, observations, config: config({ maxWaitForUnmountMs: w.maxWait, massDetachGuard: w.guard }) };
  });

const RUNS = { numRuns: 400 };

describe('safety invariants (DESIGN §11) hold for any cluster and actual state', () => {
  it('1: an exclusive volume is never attached while attached, attaching, uncertain or operated on elsewhere, nor to two nodes in one plan', () => {
    fc.assert(
      fc.property(worldArb, ({ state, actual, observations, config }) => {
        const p = plan(state, actual, observations, T0, config);
        for (const attach of p.actions.filter((a) => a.kind === 'attach')) {
          const record = actual.get(attach.volumeId);
          const exclusive = !attach.multiAttach;
          expect(exclusive).toBe(
            !state.attachments.find((d) => d.volumeId === attach.volumeId && d.nodeName === attach.nodeName)!.multiAttach ||
              record?.multiAttach === false,
          );
          if (!exclusive) continue;
          expect(Object.values(record?.attachments ?? {}).filter((a) => a.nodeName !== attach.nodeName)).toEqual([]);
          expect(Object.values(record?.operations ?? {}).filter((o) => o.nodeName !== attach.nodeName)).toEqual([]);
          expect(p.actions.filter((a) => a.kind === 'attach' && a.volumeId === attach.volumeId && a.nodeName !== attach.nodeName)).toEqual(
            [],
          );
        }
      }),
      RUNS,
    );
  });

  it("2: a volume mounted on an existing, Ready, not-out-of-service node (that is the attachment's instance) is never detached, unless it was never reported attached there", () => {
    fc.assert(
      fc.property(worldArb, ({ state, actual, observations, config }) => {
        const p = plan(state, actual, observations, T0, config);
        for (const detach of p.actions.filter((a): a is DetachAction => a.kind === 'detach')) {
          const node = state.nodes.get(detach.nodeName);
          const sameInstance = node?.instanceId === undefined || node.instanceId === detach.instanceId;
          const mountedOnHealthyNode =
            node !== undefined && sameInstance && node.ready && !node.outOfService && node.volumesInUse.includes(detach.uniqueName);
          // volumesInUse also lists volumes the kubelet waits for: a stuck attach never reported cannot be mounted.
          const neverReported = detach.trigger === 'stuck-attach' && !actual.get(detach.volumeId)!.attachments[detach.nodeName]!.reported;
          expect(mountedOnHealthyNode && !neverReported).toBe(false);
        }
      }),
      RUNS,
    );
  });

  it('3: a plan built from incomplete cluster input contains no detach and no unreport', () => {
    fc.assert(
      fc.property(worldArb, ({ state, actual, observations, config }) => {
        const p = plan({ ...state, complete: false }, actual, observations, T0, config);
        expect(p.actions.filter((a) => a.kind === 'detach' || a.kind === 'unreport')).toEqual([]);
        expect(p.heldBack).toEqual([]);
      }),
      RUNS,
    );
  });

  it("5: a node's reported list never names a loaded volume that is not attached to that node's instance", () => {
    fc.assert(
      fc.property(worldArb, ({ state, actual }) => {
        for (const [nodeName, { want: entries }] of nodeReports(state, actual)) {
          const node = state.nodes.get(nodeName)!;
          for (const entry of entries) {
            const record = [...actual.values()].find((r) => r.uniqueName === entry.name);
            if (!record && state.scope) continue; // a targeted pass keeps what it did not load
            const a = record?.attachments[nodeName];
            expect(a?.state).toBe('attached');
            expect(node.instanceId === undefined || a?.instanceId === node.instanceId).toBe(true);
          }
        }
      }),
      RUNS,
    );
  });

  it('every detach that requires an unreport comes right after it, and held-back detaches are not planned', () => {
    fc.assert(
      fc.property(worldArb, ({ state, actual, observations, config }) => {
        const p = plan(state, actual, observations, T0, config);
        p.actions.forEach((action, i) => {
          if (action.kind !== 'detach' || !action.requiresUnreport) return;
          expect(p.actions[i - 1]).toMatchObject({ kind: 'unreport', volumeId: action.volumeId, nodeName: action.nodeName });
        });
        for (const held of p.heldBack) expect(p.actions).not.toContain(held.action);
      }),
      RUNS,
    );
  });
});

describe('a covered plan (no desired attachment, no node in scope)', () => {
  it("is the same on the scope's records alone as on every record, whatever the records and EC2's word", () => {
    fc.assert(
      fc.property(worldArb, ({ actual, observations, config }) => {
        const scope = coveredScope(actual);
        const state = desired([], [], { complete: false, scope });
        expect(plan(state, coveredRecords(actual, scope), observations, T0, config)).toEqual(plan(state, actual, observations, T0, config));
      }),
      RUNS,
    );
  });
});
