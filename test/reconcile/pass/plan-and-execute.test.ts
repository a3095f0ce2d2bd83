/**
 * What every pass shares once its inputs are loaded (lambda/reconcile/pass/plan-and-execute.ts): the facts the plan
 * asks to write, the re-plan of one volume after a conflicting write, forgetting records EC2 emptied,
 * and the report's sums — above all `converged`, which says that nothing waits any more.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../../lambda/core/types.js';
import { attachment, instanceOf, MIN, node, op, pod, pv, pvc, record, snapshot, T0, uname, vol } from '../../core/builders.js';
import { harness, noPods, podOnA, V } from '../executor-harness.js';

const V2 = vol(2);

const attachedOn = (nodeName: string, device = '/dev/xvdaa') => ({
  volumeId: V,
  exists: true,
  attachments: [{ instanceId: instanceOf(nodeName), state: 'attached' as const, device }],
});

/** Two pods, each with its volume attached, mounted and reported on its node. */
const twoSettledPods = () => ({
  cluster: snapshot({
    nodes: [
      node('node-a', { inUse: [V], attached: [{ name: uname(V), devicePath: '/dev/xvdaa' }] }),
      node('node-b', { inUse: [V2], attached: [{ name: uname(V2), devicePath: '/dev/xvdaa' }] }),
    ],
    pods: [pod('db-0', { node: 'node-a', claims: ['data'] }), pod('db-1', { node: 'node-b', claims: ['logs'] })],
    pvcs: [pvc('data'), pvc('logs')],
    pvs: [pv('pv-data', { volumeId: V }), pv('pv-logs', { volumeId: V2 })],
  }),
  records: [record(V, [attachment('node-a', { mounted: true })]), record(V2, [attachment('node-b', { mounted: true })])],
});

describe("a pass's report", () => {
  it('counts the attachments wanted and on record, and is converged when nothing waits', async () => {
    const { cluster, records } = twoSettledPods();
    const { pass } = harness(cluster, records);

    const report = await pass();

    expect(report).toMatchObject({ desiredAttachments: 2, actualAttachments: 2, actions: [], converged: true });
  });

  it("says how long the pass took, on the pass's clock", async () => {
    const { pass, deps, kube } = harness(snapshot({}));
    let now = T0;
    deps.clock = () => now;
    const readAll = kube.readAll.bind(kube);
    kube.readAll = () => {
      now += 1_500;
      return readAll();
    };

    const report = await pass();

    expect(report.durationMs).toBe(1_500);
  });

  it('counts the expired operations it resolved among the other actions', async () => {
    const cluster = podOnA();
    cluster.pods.push(pod('web-0', { node: 'node-b', claims: ['cache'] }));
    cluster.pvcs.push(pvc('cache'));
    cluster.pvs.push(pv('pv-cache', { volumeId: vol(3) }));
    const expired = op('attach', 'node-b', { leaseExpiresAt: T0 - 1 });
    const { pass } = harness(cluster, [record(V2, [attachment('node-b', { state: 'attaching' })], { operations: { volume: expired } })]);

    const report = await pass();

    expect(report.actions.map((a) => a.kind)).toEqual(['resolve', 'attach', 'attach']);
    expect(report.expiredOperations).toBe(1);
  });

  it('is not converged when every action succeeded but a pod still lacks its volume (a stuck attach was just detached)', async () => {
    const { pass, ec2 } = harness(podOnA(), [record(V, [attachment('node-a', { state: 'attaching', since: T0 - 10 * MIN })])]);
    ec2.volumes.set(V, {
      volumeId: V,
      exists: true,
      attachments: [{ instanceId: instanceOf('node-a'), state: 'attaching', device: '/dev/xvdaa', attachTime: T0 - 10 * MIN }],
    });

    const report = await pass();

    expect(report.results.map((r) => [r.kind, r.outcome])).toEqual([
      ['unreport', 'ok'],
      ['detach', 'ok'],
    ]);
    expect(report).toMatchObject({ deferred: [], heldBack: [], notAttached: [{ volumeId: V, nodeName: 'node-a', state: 'not attached' }] });
    expect(report.converged).toBe(false);
  });

  it('is not converged while a pod volume is skipped (its claim does not exist)', async () => {
    const { pass } = harness(snapshot({ nodes: [node('node-a')], pods: [pod('db-0', { node: 'node-a', claims: ['missing'] })] }));

    const report = await pass();

    expect(report.skipped).toEqual([expect.objectContaining({ podVolumeName: 'v-missing', nodeName: 'node-a' })]);
    expect(report).toMatchObject({ actions: [], notAttached: [], converged: false });
  });

  it('is not converged while an action did not succeed, though no pod waits', async () => {
    const { pass, kube } = harness(noPods(), [record(V, [attachment('node-a')])]);
    kube.failStatusWrites = true;

    const report = await pass();

    expect(report.results.map((r) => r.outcome)).toEqual(['failed', 'deferred']);
    expect(report).toMatchObject({ notAttached: [], deferred: [], converged: false });
  });
});

describe('a volume no pod needs, still mounted on its node', () => {
  it('is not detached yet: the pass starts its unmount timer on the record and reports the wait', async () => {
    const { pass, store, ec2 } = harness(noPods([V]), [record(V, [attachment('node-a', { mounted: true })])]);

    const report = await pass();

    expect(ec2.calls).toEqual([]);
    expect(store.items.get(V)?.attachments['node-a']).toMatchObject({ mounted: true, detachRequestedAt: T0 });
    expect(report.deferred).toEqual([expect.objectContaining({ volumeId: V, nodeName: 'node-a' })]);
    expect(report).toMatchObject({ actions: [], notAttached: [], converged: false });
  });
});

describe('a record EC2 emptied', () => {
  it('is forgotten once the pass has written its reports', async () => {
    const { pass, store } = harness(snapshot({ nodes: [node('node-a')] }), [record(V, [attachment('node-a', { state: 'uncertain' })])]);

    const report = await pass();

    expect(store.items.has(V)).toBe(false);
    expect(report).toMatchObject({ actualAttachments: 0, converged: true });
  });
});

describe('re-planning one volume after another pass wrote it first', () => {
  /** Another pass writes the record (a harmless write: only its version moves) just before this pass starts its first operation. */
  const interveneOnce = (store: ReturnType<typeof harness>['store']) => {
    store.beforePut = (next: VolumeRecord) => {
      if (Object.keys(next.operations).length === 0) return;
      store.beforePut = undefined;
      const stored = store.items.get(next.volumeId)!;
      store.items.set(next.volumeId, { ...stored, version: stored.version + 1 });
    };
  };

  it('still detaches from a node whose object is gone (a full pass may detach from any node on record)', async () => {
    const { pass, store, ec2 } = harness(snapshot({ nodes: [node('node-b')], pvs: [pv('pv-data', { volumeId: V })] }), [
      record(V, [attachment('node-a', { mounted: false })]),
    ]);
    ec2.volumes.set(V, attachedOn('node-a'));
    interveneOnce(store);

    const report = await pass();

    expect(store.beforePut).toBeUndefined(); // the other pass did write first
    expect(ec2.calls).toEqual([`detach ${V}`, 'wait detached']);
    expect(report.results).toContainEqual(expect.objectContaining({ kind: 'detach', volumeId: V, outcome: 'ok' }));
  });

  it('after a forced detach re-plans only that volume: another pod on the same node is not attached twice', async () => {
    const moved = snapshot({
      nodes: [node('node-a', { outOfService: true, inUse: [V], attached: [{ name: uname(V), devicePath: '/dev/xvdaa' }] }), node('node-b')],
      pods: [pod('db-0', { node: 'node-b', claims: ['data'] }), pod('web-0', { node: 'node-b', claims: ['logs'] })],
      pvcs: [pvc('data'), pvc('logs')],
      pvs: [pv('pv-data', { volumeId: V }), pv('pv-logs', { volumeId: V2 })],
    });
    const { pass, ec2 } = harness(moved, [record(V, [attachment('node-a')])]);

    const report = await pass();

    expect(ec2.calls.filter((c) => c.startsWith('attach')).sort()).toEqual([`attach ${V}`, `attach ${V2}`]);
    expect(report).toMatchObject({ converged: true });
  });
});
