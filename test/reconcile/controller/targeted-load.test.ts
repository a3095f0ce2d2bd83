import { describe, expect, it } from 'vitest';
import type { ClusterSnapshot } from '../../../lambda/core/kube.js';
import type { InstanceState, VolumeId, VolumeRecord } from '../../../lambda/core/types.js';
import type { DetachRequest, SeenInstance } from '../../../lambda/ports/block-storage.js';
import { runTargetedPass } from '../../../lambda/reconcile/controller/targeted-pass.js';
import type { VolumeStore } from '../../../lambda/ports/volume-store.js';
import type { Target } from '../../../lambda/reconcile/pass/types.js';
import { attachment, instanceOf, matching, node, pod, pv, pvc, record, snapshot, T0, uname, vol } from '../../core/builders.js';
import { harness } from '../executor-harness.js';

const V = vol(1);
const W = vol(2);
/** A volume of another CSI driver, as a node's status names it. */
const EFS_NAME = 'kubernetes.io/csi/efs.csi.aws.com^fs-12345678';
const reported = (volumeId: VolumeId) => ({ name: uname(volumeId), devicePath: '/dev/xvdaa' });

/**
 * A targeted pass over fakes that write down every read: the Kubernetes reads (`pod ns/name`,
 * `node x`, `pods on x`, `list nodes`) and the volume ids of each store read. EC2 shows each
 * recorded attachment until it is detached; `states` says what EC2 reports of instances (running
 * when not named).
 */
function world(parts: Partial<ClusterSnapshot>, records: VolumeRecord[] = [], states: Record<string, InstanceState> = {}) {
  const { deps, kube, store, ec2 } = harness(snapshot(parts), records);
  for (const r of records) {
    const attachments = Object.values(r.attachments).map((a) => ({
      instanceId: a.instanceId,
      state: 'attached' as const,
      device: a.device ?? '/dev/xvdaa',
    }));
    ec2.volumes.set(r.volumeId, { volumeId: r.volumeId, exists: true, attachments });
  }
  const detach = ec2.detach.bind(ec2);
  ec2.detach = (request: DetachRequest) => {
    const seen = ec2.volumes.get(request.volumeId);
    if (seen)
      ec2.volumes.set(request.volumeId, { ...seen, attachments: seen.attachments.filter((a) => a.instanceId !== request.instanceId) });
    return detach(request);
  };
  const byInstance = new Map(Object.entries(states).map(([name, state]) => [instanceOf(name), state]));
  ec2.observeInstances = (ids) =>
    Promise.resolve(new Map(ids.map((id): [string, SeenInstance] => [id, { state: byInstance.get(id) ?? 'running', mappings: [] }])));

  const reads: string[] = [];
  const readPod = kube.readPod.bind(kube);
  const readPodsOnNode = kube.readPodsOnNode.bind(kube);
  const readNode = kube.readNode.bind(kube);
  const listNodes = kube.listNodes.bind(kube);
  kube.readPod = (namespace, name) => (reads.push(`pod ${namespace}/${name}`), readPod(namespace, name));
  kube.readPodsOnNode = (name) => (reads.push(`pods on ${name}`), readPodsOnNode(name));
  kube.readNode = (name) => (reads.push(`node ${name}`), readNode(name));
  kube.listNodes = () => (reads.push('list nodes'), listNodes());
  kube.readAll = () => Promise.reject(new Error('a targeted pass must not list the cluster'));
  const storeReads: VolumeId[][] = [];
  const getMany = store.getMany.bind(store);
  store.getMany = (ids) => (storeReads.push([...ids]), getMany(ids));

  const pass = (target: Target) => runTargetedPass(deps, target, { deadline: T0 + 60_000 });
  return { pass, reads, storeReads, kube, store, ec2 };
}

const sorted = (list: string[]) => [...list].sort();
const outcomes = (report: { results: { kind: string; volumeId: string; nodeName: string; outcome: string }[] }) =>
  report.results.map((r) => `${r.kind} ${r.volumeId} ${r.nodeName} ${r.outcome}`);

/** db-0 was rescheduled to node-b; its volume V is still attached to node-a, where web-0 keeps using W. */
const rescheduled = (dbNode = 'node-b') =>
  world(
    {
      nodes: [node('node-a', { inUse: [W], attached: [reported(V), reported(W)] }), node('node-b')],
      pods: [pod('web-0', { node: 'node-a', claims: ['www'] }), pod('db-0', { node: dbNode, claims: ['data'] })],
      pvcs: [pvc('data'), pvc('www')],
      pvs: [pv('pv-data', { volumeId: V }), pv('pv-www', { volumeId: W })],
    },
    [record(V, [attachment('node-a')]), record(W, [attachment('node-a', { device: '/dev/xvdab', mounted: true })])],
  );

describe('what a targeted pass for a pod reads', () => {
  it("frees a rescheduled pod's volume on its old node: reads the pod, its new node and the node its volume is still attached to", async () => {
    const { pass, reads, storeReads, ec2 } = rescheduled();

    const report = await pass({ kind: 'pod', namespace: 'default', name: 'db-0' });

    expect(sorted(reads)).toEqual(sorted(['pod default/db-0', 'node node-b', 'pods on node-b', 'node node-a', 'pods on node-a']));
    // An ordinary detach: the attach waits for the next pass (EC2's reads may lag), web-0's W stays where it is.
    expect(ec2.calls).toEqual([`detach ${V}`, 'wait detached']);
    expect(outcomes(report)).toEqual([`unreport ${V} node-a ok`, `detach ${V} node-a ok`, `multiAttachConflict ${V} node-b ok`]);
    // Each record once: the pod's volume first, then what the old node holds besides.
    expect(storeReads).toEqual([[V], [W]]);
  });

  it('reads the hinted node with its pods, and finds the pod there by namespace and name (not read on its own)', async () => {
    const { pass, reads, ec2, kube } = rescheduled();
    // A neighbour of the same namespace comes first on the hinted node.
    kube.snapshot.pods.unshift(pod('db-1', { node: 'node-b' }));

    await pass({ kind: 'pod', namespace: 'default', name: 'db-0', nodeHint: 'node-b' });

    expect(sorted(reads)).toEqual(sorted(['node node-b', 'pods on node-b', 'node node-a', 'pods on node-a']));
    expect(ec2.calls).toEqual([`detach ${V}`, 'wait detached']);
  });

  it('reads a pod on its own when the hint is stale, though the hinted node holds a neighbour and a namesake of another namespace', async () => {
    const { pass, reads, ec2, kube } = rescheduled();
    const namesake = pod('db-0', { ns: 'team-a', node: 'node-a' });
    namesake.metadata.uid = 'uid-pod-team-a-db-0';
    kube.snapshot.pods.unshift(namesake);

    await pass({ kind: 'pod', namespace: 'default', name: 'db-0', nodeHint: 'node-a' });

    expect(sorted(reads)).toEqual(sorted(['node node-a', 'pods on node-a', 'pod default/db-0', 'node node-b', 'pods on node-b']));
    expect(ec2.calls).toEqual([`detach ${V}`, 'wait detached']);
  });

  it.each([
    { case: 'a pod that no longer exists', pods: [], reads: ['pod default/db-0'] },
    { case: 'a pod not scheduled yet', pods: [pod('db-0', { node: null, claims: ['data'] })], reads: ['pod default/db-0'] },
  ])('reads only the pod, and changes nothing, for $case', async ({ pods, reads: expected }) => {
    const { pass, reads, ec2, kube } = world({
      nodes: [node('node-a')],
      pods,
      pvcs: [pvc('data')],
      pvs: [pv('pv-data', { volumeId: V })],
    });

    const report = await pass({ kind: 'pod', namespace: 'default', name: 'db-0' });

    expect(reads).toEqual(expected);
    expect(ec2.calls).toEqual([]);
    expect(kube.statusWrites).toEqual([]);
    expect(report.results).toEqual([]);
  });
});

describe('the store items a targeted pass reads', () => {
  it('reads each volume once, even one with no item or an item it cannot parse, and reports such an item once', async () => {
    const X = vol(3);
    const { pass, store, storeReads } = world(
      {
        nodes: [node('node-a', { attached: [reported(V)] }), node('node-b')],
        pods: [pod('db-0', { node: 'node-b', claims: ['data'] }), pod('x-0', { node: 'node-b', claims: ['x'] })],
        pvcs: [pvc('data'), pvc('x')],
        pvs: [pv('pv-data', { volumeId: V }), pv('pv-x', { volumeId: X })],
      },
      [record(V, [attachment('node-a')])],
    );
    const getMany = store.getMany.bind(store);
    const port: VolumeStore = store;
    port.getMany = async (ids) => ({
      ...(await getMany(ids)),
      corrupt: ids.includes(X) ? [{ key: X, problem: 'attachments is not a map' }] : [],
    });

    const report = await pass({ kind: 'pod', namespace: 'default', name: 'db-0' });

    expect(storeReads).toEqual([[V, X]]);
    expect(report.problems).toEqual([{ source: 'dynamodb', message: matching(new RegExp(`${X}.*attachments is not a map`)) }]);
  });
});

describe('what a targeted pass for a node reads', () => {
  it('detaches a volume the node still reports attached but no pod uses or mounts, asking EC2 about EBS volumes only', async () => {
    const { pass, reads, ec2, kube } = world(
      { nodes: [node('node-a', { attached: [reported(V), { name: EFS_NAME, devicePath: '' }] })], pvs: [pv('pv-data', { volumeId: V })] },
      [record(V, [attachment('node-a')])],
    );

    const report = await pass({ kind: 'node', name: 'node-a' });

    expect(sorted(reads)).toEqual(['node node-a', 'pods on node-a']);
    expect(ec2.describes).toEqual([[V]]);
    expect(outcomes(report)).toEqual([`unreport ${V} node-a ok`, `detach ${V} node-a ok`]);
    expect(kube.statusWrites).toEqual([{ node: 'node-a', volumes: [{ name: EFS_NAME, devicePath: '' }] }]);
  });

  it('knows a volume the kubelet still lists in use, even once the node no longer reports it attached: it waits for the unmount', async () => {
    const { pass, ec2 } = world({ nodes: [node('node-a', { inUse: [V] })], pvs: [pv('pv-data', { volumeId: V })] }, [
      record(V, [attachment('node-a', { reported: false })]),
    ]);

    const report = await pass({ kind: 'node', name: 'node-a' });

    expect(ec2.calls).toEqual([]);
    expect(report.deferred).toEqual([expect.objectContaining({ volumeId: V, nodeName: 'node-a', code: 'mounted-on-ready-node' })]);
  });

  it("neither detaches a moved pod's volume from its old node (whose pods it did not read) nor attaches it on the new one", async () => {
    const { pass, reads, ec2, kube } = rescheduled();

    const report = await pass({ kind: 'node', name: 'node-b' });

    expect(sorted(reads)).toEqual(['node node-b', 'pods on node-b']);
    expect(ec2.calls).toEqual([]);
    expect(report.results).toEqual([expect.objectContaining({ kind: 'multiAttachConflict', volumeId: V, nodeName: 'node-b' })]);
    expect(kube.events.map((e) => e.event.reason)).toEqual(['FailedAttachVolume']);
  });
});

describe('what a targeted pass for a volume reads', () => {
  it('reads the record, then the node it is attached to, and detaches it there once no pod uses it', async () => {
    const { pass, reads, storeReads, ec2 } = world(
      { nodes: [node('node-a', { attached: [reported(V)] }), node('node-b')], pvs: [pv('pv-data', { volumeId: V })] },
      [record(V, [attachment('node-a')])],
    );

    const report = await pass({ kind: 'volume', volumeId: V });

    expect(sorted(reads)).toEqual(['node node-a', 'pods on node-a']);
    expect(storeReads).toEqual([[V]]);
    expect(ec2.calls).toEqual([`detach ${V}`, 'wait detached']);
    expect(report.converged).toBe(true);
  });
});

describe('what a targeted pass for an instance reads', () => {
  it("finds a terminated instance's node by its providerID when EC2 already released its volumes, and clears the node's report", async () => {
    const { pass, reads, ec2, kube, store } = world(
      {
        nodes: [node('node-a', { ready: false, attached: [reported(V)] }), node('node-b', { attached: [reported(W)] })],
        pvs: [pv('pv-data', { volumeId: V }), pv('pv-www', { volumeId: W })],
      },
      [record(W, [attachment('node-b')])],
      { 'node-a': 'terminated' },
    );
    store.items.set(V, record(V, [attachment('node-a')])); // EC2 shows V nowhere: terminating released it

    await pass({ kind: 'instance', instanceId: instanceOf('node-a') });

    expect(sorted(reads)).toEqual(['list nodes', 'node node-a', 'pods on node-a']);
    expect(ec2.calls).toEqual([]);
    expect(kube.statusWrites).toEqual([{ node: 'node-a', volumes: [] }]);
    expect(store.items.has(V)).toBe(false);
  });

  it.each([
    { case: 'whose node object is gone', nodes: [node('node-b')] },
    { case: 'whose node object is still there', nodes: [node('node-a', { ready: false, attached: [reported(V)] }), node('node-b')] },
  ])('detaches the volumes EC2 shows on a stopped instance $case, reading its node once', async ({ nodes }) => {
    const { pass, reads, ec2 } = world({ nodes, pvs: [pv('pv-data', { volumeId: V })] }, [record(V, [attachment('node-a')])], {
      'node-a': 'stopped',
    });

    const report = await pass({ kind: 'instance', instanceId: instanceOf('node-a') });

    expect(sorted(reads)).toEqual(['list nodes', 'node node-a', 'pods on node-a']);
    expect(ec2.calls).toEqual([`detach ${V}`, 'wait detached']);
    expect(report.results).toContainEqual(expect.objectContaining({ kind: 'detach', volumeId: V, nodeName: 'node-a', outcome: 'ok' }));
  });
});
