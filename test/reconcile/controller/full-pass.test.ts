/**
 * The full pass's own decisions (lambda/reconcile/controller/full-pass.ts): when it asks EC2 and when that
 * counts as a verification, when it acts on the cluster (a complete read, not a dry run, no takeover
 * under way), and what its report says.
 */
import { describe, expect, it } from 'vitest';
import type { KubeNode } from '../../../lambda/core/kube.js';
import type { NodeTaintEdit } from '../../../lambda/core/out-of-service.js';
import type { SeenInstance } from '../../../lambda/ports/block-storage.js';
import type { ReadResult } from '../../../lambda/ports/volume-store.js';
import { attachment, MIN, node, op, pod, pv, pvc, record, snapshot, T0, uname, vol } from '../../core/builders.js';
import { runFullPass } from '../../../lambda/reconcile/controller/full-pass.js';
import { harness, noPods, podOnA, V, ec2ShowsAttached } from '../executor-harness.js';

const V2 = vol(2);

/** A pod on node-a using V, attached there, mounted and reported: nothing to do. */
const settled = () => {
  const cluster = podOnA();
  cluster.nodes[0] = node('node-a', { inUse: [V], attached: [{ name: uname(V), devicePath: '/dev/xvdaa' }] });
  return { cluster, records: [record(V, [attachment('node-a', { mounted: true })])] };
};

/** A dry-run full pass over the harness's fakes. */
const runDry = (deps: ReturnType<typeof harness>['deps']) => runFullPass(deps, { deadline: T0 + 60_000 }, { dryRun: true });

/** Node taints over the fake cluster's nodes: records every node whose taints an edit changed. */
function taintsOver(nodes: () => KubeNode[]) {
  const edited: { node: string; edit: NodeTaintEdit }[] = [];
  return {
    edited,
    editTaints(name: string, edit: (live: KubeNode) => NodeTaintEdit | undefined) {
      const live = nodes().find((n) => n.metadata.name === name);
      if (live === undefined) return Promise.resolve('node-gone' as const);
      const change = edit(live);
      if (change === undefined) return Promise.resolve('unchanged' as const);
      edited.push({ node: name, edit: change });
      return Promise.resolve('updated' as const);
    },
  };
}

describe('a full pass in a dry run', () => {
  it('reports the actions it would take and changes nothing in EC2, the store or the cluster', async () => {
    const cluster = podOnA();
    cluster.nodes[1] = node('node-b', { attached: [{ name: uname(V2), devicePath: '/dev/xvdab' }] });
    const { deps, store, kube, ec2 } = harness(cluster, [record(V2, [attachment('node-b')])]);
    const before = structuredClone([...store.items.values()]);

    const report = await runDry(deps);

    expect(report).toMatchObject({ dryRun: true, results: [], converged: false });
    expect(report.actions.map((a) => [a.kind, a.volumeId, a.nodeName])).toEqual([
      ['unreport', V2, 'node-b'],
      ['detach', V2, 'node-b'],
      ['attach', V, 'node-a'],
    ]);
    expect(ec2.calls).toEqual([]);
    expect([...store.items.values()]).toEqual(before);
    expect(store.state).toEqual({ version: 1, lastVerifiedAt: T0, seededAt: T0 });
    expect(kube.statusWrites).toEqual([]);
    expect(kube.volumeAttachmentWrites).toEqual([]);
    expect(kube.events).toEqual([]);
  });

  it('is not converged while it would detach, though no pod waits for anything', async () => {
    const { deps, ec2 } = harness(noPods(), [record(V, [attachment('node-a')])]);

    const report = await runDry(deps);

    expect(report.actions.map((a) => a.kind)).toEqual(['unreport', 'detach']);
    expect(report.notAttached).toEqual([]);
    expect(report.converged).toBe(false);
    expect(ec2.calls).toEqual([]);
  });

  it('is converged when it would do nothing', async () => {
    const { cluster, records } = settled();
    const { deps } = harness(cluster, records);

    const report = await runDry(deps);

    expect(report).toMatchObject({ dryRun: true, actions: [], converged: true });
  });
});

describe("a full pass's id", () => {
  it.each([
    ['the one the caller gave', { passId: 'tick-7' }, 'tick-7'],
    ['a new one when the caller gave none', {}, 'id-1'],
  ])('is %s', async (_case, options, passId) => {
    const { deps } = harness(snapshot({}));

    const report = await runFullPass(deps, { deadline: T0 + 60_000 }, options);

    expect(report.passId).toBe(passId);
  });
});

describe('a full pass whose cluster read failed', () => {
  const unreadable = (h: ReturnType<typeof harness>) => {
    h.kube.readAll = () => Promise.reject(new Error('the API server is down'));
    return h;
  };

  it("detaches nothing, yet resolves an expired operation on EC2's word and reports the read failure", async () => {
    const expired = op('attach', 'node-b', { leaseExpiresAt: T0 - 1 });
    const { pass, store, ec2 } = unreadable(
      harness(snapshot({}), [
        record(V, [attachment('node-a')]),
        record(V2, [attachment('node-b', { state: 'attaching' })], { operations: { volume: expired } }),
      ]),
    );
    ec2.volumes.set(V, ec2ShowsAttached('node-a', '/dev/xvdaa'));

    const report = await pass();

    expect(ec2.calls).toEqual([]);
    expect(store.items.get(V)?.attachments['node-a']?.state).toBe('attached');
    expect(report.results).toEqual([expect.objectContaining({ kind: 'resolve', volumeId: V2, outcome: 'ok' })]);
    expect(store.items.has(V2)).toBe(false); // EC2 shows it attached nowhere: the record, now empty, is forgotten
    expect(report).toMatchObject({
      clusterComplete: false,
      clusterError: 'cluster read failed, so this pass attaches and detaches nothing: the API server is down',
      converged: false,
    });
  });

  it('is not converged even when there is nothing to do', async () => {
    const { pass } = unreadable(harness(snapshot({})));

    const report = await pass();

    expect(report).toMatchObject({ clusterComplete: false, actions: [], deferred: [], results: [], converged: false });
  });

  it('says no cluster error when the read succeeded', async () => {
    const { pass } = harness(snapshot({}));

    const report = await pass();

    expect(report.clusterComplete).toBe(true);
    expect(report).not.toHaveProperty('clusterError');
  });
});

describe('when a full pass asks EC2', () => {
  it('between sync periods asks only about unsettled attachments, and that is no verification', async () => {
    const cluster = podOnA();
    cluster.nodes[1] = node('node-b', { attached: [{ name: uname(V2), devicePath: '/dev/xvdab' }], inUse: [V2] });
    const { pass, store, ec2 } = harness(cluster, [
      record(V, [attachment('node-a', { state: 'uncertain' })]),
      record(V2, [attachment('node-b', { mounted: true })]),
    ]);

    const report = await pass();

    expect(ec2.describes[0]).toEqual([V]);
    expect(report.verified).toBe(false);
    expect(store.state).toEqual({ version: 1, lastVerifiedAt: T0, seededAt: T0 });
  });

  it('between sync periods with every attachment settled asks EC2 nothing', async () => {
    const { cluster, records } = settled();
    const h = harness(cluster, records);
    const asked: string[][] = [];
    h.ec2.observeInstances = (ids) => {
      asked.push(ids);
      return Promise.resolve(new Map<string, SeenInstance | 'missing'>());
    };

    const report = await h.pass();

    expect([h.ec2.describes, asked]).toEqual([[], []]);
    expect(report).toMatchObject({ verified: false, converged: true });
  });

  it('a sync period after the last verification verifies every volume and instance, and writes down when', async () => {
    const { cluster, records } = settled();
    const { pass, store, ec2 } = harness(cluster, records);
    store.state = { version: 1, lastVerifiedAt: T0 - 2 * MIN, seededAt: T0 - 60 * MIN };

    const report = await pass();

    expect(ec2.describes).toEqual([[V]]);
    expect(report.verified).toBe(true);
    expect(store.state).toEqual({ version: 2, lastVerifiedAt: T0, completeAt: T0, seededAt: T0 - 60 * MIN });
  });

  it('when EC2 cannot be asked, the pass is not verified and the last verification stands', async () => {
    const { cluster, records } = settled();
    const { pass, store, ec2 } = harness(cluster, records);
    store.state = { version: 1, lastVerifiedAt: T0 - 2 * MIN, seededAt: T0 - 60 * MIN };
    ec2.describeVolumes = () => Promise.reject(new Error('RequestLimitExceeded'));

    const report = await pass();

    expect(report.verified).toBe(false);
    expect(store.state).toEqual({ version: 1, lastVerifiedAt: T0 - 2 * MIN, seededAt: T0 - 60 * MIN });
  });
});

describe('a first full pass (taking over from kube-controller-manager)', () => {
  it('asks EC2 once about the volumes the nodes claim, then verifies the ones no node claims', async () => {
    const cluster = snapshot({
      nodes: [node('node-a', { inUse: [V], attached: [{ name: uname(V), devicePath: '/dev/xvdaa' }] }), node('node-b')],
      pods: [pod('db-0', { node: 'node-a', claims: ['data'] }), pod('db-1', { node: 'node-b', claims: ['logs'] })],
      pvcs: [pvc('data'), pvc('logs')],
      pvs: [pv('pv-data', { volumeId: V }), pv('pv-logs', { volumeId: V2 })],
    });
    const { pass, store, ec2 } = harness(cluster);
    store.state = { version: 0 };
    ec2.volumes.set(V, ec2ShowsAttached('node-a', '/dev/xvdaa'));

    const report = await pass();

    expect(ec2.describes).toEqual([[V], [V2]]);
    expect(ec2.calls).toEqual([`attach ${V2}`, 'wait attached']);
    expect(report).toMatchObject({ seeded: true, verified: true, takeover: { done: 1, left: 0 }, converged: true });
    expect(store.state).toEqual({ version: expect.any(Number) as number, seededAt: T0, lastVerifiedAt: T0, completeAt: T0 });
  });

  it('finishing a takeover an earlier invocation started dates the seeding and the verification from its start', async () => {
    const { cluster, records } = settled();
    const { pass, store, ec2 } = harness(cluster, records);
    store.state = { version: 3, takeover: { startedAt: T0 - 5 * MIN, through: V } };

    const report = await pass();

    expect(ec2.describes).toEqual([]); // the earlier invocation asked about V
    expect(report).toMatchObject({ seeded: true, verified: true, takeover: { done: 0, left: 0 } });
    expect(store.state).toEqual({ version: 4, seededAt: T0 - 5 * MIN, lastVerifiedAt: T0 - 5 * MIN, completeAt: T0 - 5 * MIN });
  });

  it('left partial (EC2 could not be asked) plans nothing and is not converged, though no pod waits', async () => {
    const { pass, store, ec2, kube } = harness(noPods());
    store.state = { version: 0 };
    ec2.describeVolumes = () => Promise.reject(new Error('RequestLimitExceeded'));

    const report = await pass();

    expect(report).toMatchObject({ takeover: { done: 0, left: 1 }, actions: [], notAttached: [], converged: false, verified: false });
    expect(store.items.size).toBe(0);
    expect(store.state.seededAt).toBeUndefined();
    expect(kube.statusWrites).toEqual([]);
  });
});

describe('the out-of-service taint of a node whose instance EC2 shows terminated', () => {
  const deadNode = () => {
    const h = harness(noPods([V]), [record(V, [attachment('node-a', { mounted: true })])]);
    h.store.state = { version: 1, lastVerifiedAt: T0 - 2 * MIN, seededAt: T0 - 60 * MIN };
    h.ec2.volumes.set(V, ec2ShowsAttached('node-a', '/dev/xvdaa'));
    h.ec2.observeInstances = (ids) =>
      Promise.resolve(new Map<string, SeenInstance | 'missing'>(ids.map((id) => [id, { state: 'terminated', mappings: [] }])));
    const taints = taintsOver(() => h.kube.snapshot.nodes);
    h.deps.nodeTaints = taints;
    return { ...h, taints };
  };

  it('is placed by a verifying pass, which then detaches the volume at once', async () => {
    const { pass, taints, ec2 } = deadNode();

    await pass();

    expect(taints.edited.map((e) => e.node)).toEqual(['node-a']);
    expect(ec2.calls).toEqual([`detach ${V}`, 'wait detached']);
  });

  it('is not placed by a dry run', async () => {
    const { deps, taints, ec2 } = deadNode();

    const report = await runDry(deps);

    expect(taints.edited).toEqual([]);
    expect(ec2.calls).toEqual([]);
    expect(report.verified).toBe(true);
  });
});

describe("a full pass's report", () => {
  it('lists malformed cluster objects and unreadable store items as problems', async () => {
    const { pass, store } = harness(snapshot({ nodes: [node('node-a'), node('node-a')] }));
    const unreadable: ReadResult = { records: new Map(), corrupt: [{ key: 'vol-bad', problem: 'no uniqueName' }] };
    Object.assign(store, { scan: () => Promise.resolve(unreadable) });

    const report = await pass();

    expect(report.problems).toEqual([
      { source: 'kubernetes', message: 'node node-a is listed twice; the first is used' },
      { source: 'dynamodb', message: 'item vol-bad: no uniqueName' },
    ]);
  });
});
