/**
 * One targeted attacher step over VolumeAttachments read by name (attacher/act-on.ts): the PVs,
 * CSINodes and Nodes they name are read by name unless the caller read them already, the plan sees
 * only their volumes, detaches only from `detachFrom`, and EC2 is asked about their volumes and
 * instances (and any the caller adds).
 */
import { describe, expect, it } from 'vitest';
import type { KubeCsiNode, KubeNode, KubeVolumeAttachment } from '../../../lambda/core/kube.js';
import type { InstanceId } from '../../../lambda/core/types.js';
import { actOnVolumeAttachments, type VaStepInput } from '../../../lambda/reconcile/attacher/act-on.js';
import { csiNode, kcmVa } from '../../core/attacher/builders.js';
import { actualOf, attachment, instanceOf, node, pv, record, T0, vol } from '../../core/builders.js';
import { FakeBlockStorage, FakeCluster, FakeStore, fakeDeps } from '../../support/fake-ports.js';

const budget = { deadline: T0 + 60_000 };
const A = instanceOf('node-a');

/**
 * A cluster with nodes node-a and node-b (both with the EBS plugin registered), PVs pv-data (volume 1)
 * and pv-logs (volume 2), and the given VolumeAttachments; every read by name is written down in order.
 */
function world(vas: KubeVolumeAttachment[], o: { csiNodes?: KubeCsiNode[]; records?: ReturnType<typeof actualOf> } = {}) {
  const cluster = new FakeCluster({
    nodes: [node('node-a'), node('node-b')],
    pods: [],
    pvcs: [],
    pvs: [pv('pv-data'), pv('pv-logs', { volumeId: vol(2) })],
    volumeAttachments: vas,
  });
  cluster.csiNodes = o.csiNodes ?? [csiNode('node-a'), csiNode('node-b')];
  const reads: string[] = [];
  const readPv = cluster.readPv.bind(cluster);
  cluster.readPv = (name) => (reads.push(`pv ${name}`), readPv(name));
  const readCsiNode = cluster.readCsiNode.bind(cluster);
  cluster.readCsiNode = (name) => (reads.push(`csinode ${name}`), readCsiNode(name));
  const readNode = cluster.readNode.bind(cluster);
  cluster.readNode = (name) => (reads.push(`node ${name}`), readNode(name));
  const store = new FakeStore();
  for (const r of (o.records ?? actualOf()).values()) store.items.set(r.volumeId, r);
  const blockStorage = new FakeBlockStorage();
  const observed: InstanceId[][] = [];
  const observe = blockStorage.observeInstances.bind(blockStorage);
  blockStorage.observeInstances = (ids) => (observed.push([...ids]), observe(ids));
  const deps = fakeDeps({ cluster, store, blockStorage });
  const act = (input: Partial<VaStepInput> = {}, dryRun = false) =>
    actOnVolumeAttachments(deps, budget, { volumeAttachments: vas, ...input }, dryRun);
  return { cluster, store, blockStorage, reads, observed, act };
}

/** EC2's calls for attaching each volume (two attaches run concurrently: compare them sorted). */
const attachedCalls = (...volumes: string[]) => volumes.flatMap((v) => [`attach ${v}`, 'wait attached']);

describe('acting on VolumeAttachments read by name', () => {
  it('reads each PV, CSINode and Node the objects name once, attaches both volumes, and asks EC2 about them', async () => {
    const w = world([kcmVa('node-a', { pv: 'pv-logs' }), kcmVa('node-a')]);

    const step = await w.act();

    expect(w.reads).toEqual(['pv pv-logs', 'pv pv-data', 'csinode node-a', 'node node-a']);
    expect([...w.blockStorage.calls].sort()).toEqual(attachedCalls(vol(1), vol(2)).sort());
    expect(w.blockStorage.describes).toEqual([[vol(1), vol(2)]]);
    expect(w.observed).toEqual([[A]]);
    expect(step.verified).toBe(true);
    expect(step.desired.attachments.map((d) => `${d.volumeId} ${d.nodeName}`)).toEqual([`${vol(1)} node-a`, `${vol(2)} node-a`]);
    expect(step.executed.results.map((r) => `${r.kind} ${r.volumeId} ${r.outcome}`)).toEqual([
      `attach ${vol(1)} ok`,
      `attach ${vol(2)} ok`,
    ]);
    expect(step.corrupt).toEqual([]);
  });

  it('objects the caller already read are used as given and not read again', async () => {
    // The cluster's CSINode of node-a lost its driver since the caller read it: the caller's copy decides.
    const w = world([kcmVa('node-a', { pv: 'pv-logs' }), kcmVa('node-a')], { csiNodes: [csiNode('node-a', null)] });
    const given = { pvs: [pv('pv-data')], csiNodes: [csiNode('node-a')], nodes: [node('node-a')] };

    await w.act(given);

    expect(w.reads).toEqual(['pv pv-logs']);
    expect([...w.blockStorage.calls].sort()).toEqual(attachedCalls(vol(1), vol(2)).sort());
  });

  it("the caller's objects of one node spare only that node's reads: another node's are read by name", async () => {
    const w = world([kcmVa('node-a'), kcmVa('node-b', { pv: 'pv-logs' })]);

    await w.act({ csiNodes: [csiNode('node-a')], nodes: [node('node-a')] });

    expect(w.reads).toEqual(['pv pv-data', 'pv pv-logs', 'csinode node-b', 'node node-b']);
    expect([...w.blockStorage.calls].sort()).toEqual(attachedCalls(vol(1), vol(2)).sort());
  });

  it('a Node the caller read that names another instance than the CSINode (a reused name): refused, not attached', async () => {
    const w = world([kcmVa('node-a')]);
    const replacement: KubeNode = { ...node('node-a'), spec: { providerID: 'aws:///us-east-1a/i-0abcdef0123456789' } };

    const step = await w.act({ nodes: [replacement] });

    expect(w.reads).toEqual(['pv pv-data', 'csinode node-a']);
    expect(w.blockStorage.calls).toEqual([]);
    expect(step.desired.problems).toEqual([
      expect.stringContaining(`CSINode node-a names instance ${A} but the node's providerID names i-0abcdef0123456789`),
    ]);
  });

  it('a PV, CSINode or Node that does not exist is left out: that object is refused, the others attach', async () => {
    const w = world([kcmVa('node-a', { pv: 'pv-gone' }), kcmVa('node-c', { pv: 'pv-logs' }), kcmVa('node-a')]);

    const step = await w.act();

    expect(w.reads).toEqual(['pv pv-gone', 'pv pv-logs', 'pv pv-data', 'csinode node-a', 'csinode node-c', 'node node-a', 'node node-c']);
    expect(w.blockStorage.calls).toEqual(attachedCalls(vol(1)));
    expect(w.blockStorage.describes).toEqual([[vol(1), vol(2)]]);
    expect(w.observed).toEqual([[A]]);
    expect(step.desired.problems).toEqual([
      expect.stringMatching(/^VolumeAttachment csi-pv-gone-node-a: /),
      expect.stringMatching(/^VolumeAttachment csi-pv-logs-node-c: CSINode node-c has no ebs.csi.aws.com driver registered/),
    ]);
  });

  it('an inline (migrated in-tree) VolumeAttachment names no PV: only its node is read, and it attaches', async () => {
    const w = world([kcmVa('node-b', { inline: { volumeHandle: vol(3) } })]);

    await w.act();

    expect(w.reads).toEqual(['csinode node-b', 'node node-b']);
    expect(w.blockStorage.calls).toEqual(attachedCalls(vol(3)));
  });

  it('EC2 is asked about the instances the caller adds too, each once, in order', async () => {
    const w = world([kcmVa('node-a'), kcmVa('node-b')]);

    await w.act({ instances: ['i-0000000000000000a', A] });

    expect(w.observed).toEqual([['i-0000000000000000a', A, instanceOf('node-b')]]);
  });

  it('EC2 unreachable: the step is not verified', async () => {
    const w = world([kcmVa('node-a')]);
    w.blockStorage.describeVolumes = () => Promise.reject(new Error('RequestLimitExceeded'));

    const step = await w.act();

    expect(step.verified).toBe(false);
  });

  it.each([
    ['nothing else given', {}],
    ['PVs, CSINodes and Nodes given', { pvs: [pv('pv-data')], csiNodes: [csiNode('node-a')], nodes: [node('node-a')] }],
  ])('no VolumeAttachments (%s): nothing read, EC2 not asked, nothing done', async (_case, given) => {
    const w = world([]);

    const step = await w.act(given);

    expect(w.reads).toEqual([]);
    expect(w.blockStorage.describes).toEqual([]);
    expect(w.observed).toEqual([]);
    expect(step).toMatchObject({ verified: false, corrupt: [] });
    expect(step.executed.plan.actions).toEqual([]);
  });
});

describe('what a step may detach', () => {
  /** kcm deletes the object of volume 1 on node-a, which we attached and EC2 still shows attached. */
  function releasing() {
    const w = world([kcmVa('node-a', { claimed: true, deleting: true })], { records: actualOf(record(vol(1), [attachment('node-a')])) });
    w.blockStorage.volumes.set(vol(1), {
      volumeId: vol(1),
      exists: true,
      attachments: [{ instanceId: A, state: 'attached', device: '/dev/xvdaa' }],
    });
    return w;
  }

  it('a released object on a node in detachFrom: detached in EC2, then let go', async () => {
    const w = releasing();

    const step = await w.act({ detachFrom: ['node-a'] });

    expect(w.blockStorage.calls).toEqual([`detach ${vol(1)}`, 'wait detached']);
    expect(w.cluster.attacherWrites).toEqual([
      'release csi-pv-data-node-a',
      'status csi-pv-data-node-a {"attached":false,"attachmentMetadata":null,"detachError":null}',
    ]);
    expect(step.desired.scope).toEqual({ volumes: [vol(1)], nodes: ['node-a'] });
  });

  it.each([
    ['no detachFrom (attach only)', {}],
    ['detachFrom names other nodes', { detachFrom: ['node-b'] }],
  ])('a released object, %s: nothing detached, nothing let go', async (_case, input) => {
    const w = releasing();

    await w.act(input);

    expect(w.blockStorage.calls).toEqual([]);
    expect(w.cluster.attacherWrites).toEqual([]);
  });

  it('a dry run plans the detach and changes nothing', async () => {
    const w = releasing();

    const step = await w.act({ detachFrom: ['node-a'] }, true);

    expect(step.executed.plan.actions.map((a) => `${a.kind} ${a.nodeName}`)).toEqual(['detach node-a']);
    expect(w.blockStorage.calls).toEqual([]);
    expect(w.cluster.attacherWrites).toEqual([]);
  });
});
