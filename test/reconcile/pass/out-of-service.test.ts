import { describe, expect, it } from 'vitest';
import type { KubeNode, KubeTaint } from '../../../lambda/core/kube.js';
import { OUR_TAINT, TAINTED_BY_US_ANNOTATION, type NodeTaintEdit } from '../../../lambda/core/out-of-service.js';
import type { InstanceState, VolumeRecord } from '../../../lambda/core/types.js';
import type { SeenInstance } from '../../../lambda/ports/block-storage.js';
import type { NodeTaints } from '../../../lambda/ports/node-taints.js';
import { runTargetedPass } from '../../../lambda/reconcile/controller/targeted-pass.js';
import type { ModeDeps } from '../../../lambda/reconcile/operating-mode.js';
import type { PassOptions, Target } from '../../../lambda/reconcile/pass/types.js';
import { attachment, instanceOf, matching, node, pod, pv, pvc, record, snapshot, T0, uname, vol } from '../../core/builders.js';
import { FakeBlockStorage, FakeCluster, FakeStore, fakeDeps } from '../../support/fake-ports.js';

const V = vol(1);
const DEDICATED: KubeTaint = { key: 'dedicated', value: 'db', effect: 'NoSchedule' };

/**
 * The API server's nodes as the taint writer sees them: its own copy, so a test can change a node
 * "since the pass read it". Records every node it was asked to edit and every write it made.
 */
class FakeNodeTaints implements NodeTaints {
  readonly asked: string[] = [];
  readonly writes: { node: string; taints: KubeTaint[]; mark: string | null }[] = [];
  failure?: Error;
  constructor(readonly live: KubeNode[]) {}

  editTaints(name: string, edit: (live: KubeNode) => NodeTaintEdit | undefined) {
    this.asked.push(name);
    if (this.failure) return Promise.reject(this.failure);
    const current = this.live.find((n) => n.metadata.name === name);
    if (current === undefined) return Promise.resolve('node-gone' as const);
    const next = edit(structuredClone(current));
    if (next === undefined) return Promise.resolve('unchanged' as const);
    current.spec = { ...current.spec, taints: next.taints };
    const { [TAINTED_BY_US_ANNOTATION]: _mark, ...annotations } = current.metadata.annotations ?? {};
    current.metadata.annotations = next.mark === null ? annotations : { ...annotations, [TAINTED_BY_US_ANNOTATION]: next.mark };
    this.writes.push({ node: name, ...next });
    return Promise.resolve('updated' as const);
  }
}

/** node-a as a node we tainted: our taint beside a user's, and our mark naming its instance. */
function taintedByUs(): KubeNode {
  const tainted = node('node-a', { inUse: [V], attached: [{ name: uname(V), devicePath: '/dev/xvdaa' }] });
  tainted.spec!.taints = [DEDICATED, { ...OUR_TAINT }];
  tainted.metadata.annotations = { ...tainted.metadata.annotations, [TAINTED_BY_US_ANNOTATION]: instanceOf('node-a') };
  return tainted;
}

/** node-a, Ready (the node controller has not noticed yet), still listing V mounted; a user's taint on it. */
function readyWithMountedVolume(): KubeNode {
  const ready = node('node-a', { inUse: [V], attached: [{ name: uname(V), devicePath: '/dev/xvdaa' }] });
  ready.spec!.taints = [DEDICATED];
  return ready;
}

interface World {
  nodes: KubeNode[];
  /** What EC2 says of each node's instance (running when not named). */
  states: Record<string, InstanceState>;
  records?: VolumeRecord[];
  taintsPort?: boolean;
  outOfServiceTaint?: boolean;
}

/** A cluster with no pods left on node-a; EC2 shows V attached to node-a's instance until it is detached. */
function world({ nodes, states, records = [record(V, [attachment('node-a')])], taintsPort = true, outOfServiceTaint }: World) {
  const kube = new FakeCluster(snapshot({ nodes, pvs: [pv('pv-data', { volumeId: V })] }));
  const store = new FakeStore();
  for (const r of records) store.items.set(r.volumeId, structuredClone(r));
  const ec2 = new FakeBlockStorage();
  ec2.volumes.set(V, {
    volumeId: V,
    exists: true,
    attachments: [{ instanceId: instanceOf('node-a'), state: 'attached', device: '/dev/xvdaa' }],
  });
  const detach = ec2.detach.bind(ec2);
  ec2.detach = (request) => (ec2.volumes.delete(request.volumeId), detach(request)); // EC2 lets go of it
  const byInstance = new Map(Object.entries(states).map(([name, state]) => [instanceOf(name), state]));
  ec2.observeInstances = (ids) =>
    Promise.resolve(new Map(ids.map((id): [string, SeenInstance] => [id, { state: byInstance.get(id) ?? 'running', mappings: [] }])));
  const taints = new FakeNodeTaints(structuredClone(nodes));
  const base = fakeDeps({ cluster: kube, store, blockStorage: ec2, ...(taintsPort ? { nodeTaints: taints } : {}) });
  const deps: ModeDeps = outOfServiceTaint === undefined ? base : { ...base, settings: { ...base.settings, outOfServiceTaint } };
  const pass = (target: Target = { kind: 'node', name: 'node-a' }, options: PassOptions = {}) =>
    runTargetedPass(deps, target, { deadline: T0 + 60_000 }, options);
  return { kube, store, ec2, taints, pass };
}

describe('the out-of-service taint of dead instances', () => {
  it.each<InstanceState>(['stopped', 'terminated'])(
    "taints the node of a %s instance and, in the same pass, detaches the volume the node's kubelet can no longer unmount",
    async (state) => {
      const { taints, ec2, pass } = world({ nodes: [readyWithMountedVolume()], states: { 'node-a': state } });

      const report = await pass();

      expect(taints.writes).toEqual([{ node: 'node-a', taints: [DEDICATED, OUR_TAINT], mark: instanceOf('node-a') }]);
      expect(ec2.calls).toEqual([`detach ${V}`, 'wait detached']);
      expect(report.results.map((r) => [r.kind, r.nodeName, r.outcome])).toEqual([
        ['unreport', 'node-a', 'ok'],
        ['detach', 'node-a', 'ok'],
      ]);
      expect(report.reportErrors).toEqual([]);
    },
  );

  it("attaches a pod's volume on its new node in the pass that tainted its old node, stopped with the volume still mounted", async () => {
    const { taints, ec2, pass, kube } = world({
      nodes: [readyWithMountedVolume(), node('node-b')],
      states: { 'node-a': 'stopped' },
    });
    kube.snapshot.pods = [pod('db-0', { node: 'node-b', claims: ['data'] })];
    kube.snapshot.pvcs = [pvc('data')];

    const report = await pass({ kind: 'pod', namespace: 'default', name: 'db-0' });

    expect(taints.writes.map((w) => w.node)).toEqual(['node-a']);
    expect(ec2.calls).toEqual([`detach ${V}`, 'wait detached', `attach ${V}`, 'wait attached']);
    expect(report.converged).toBe(true);
  });

  it('places no taint in a dry run, which plans as on a node still in service: the mounted volume waits', async () => {
    const { taints, ec2, pass } = world({ nodes: [readyWithMountedVolume()], states: { 'node-a': 'stopped' } });

    const report = await pass({ kind: 'node', name: 'node-a' }, { dryRun: true });

    expect(taints.asked).toEqual([]);
    expect(ec2.calls).toEqual([]);
    expect(report.deferred).toEqual([expect.objectContaining({ volumeId: V, nodeName: 'node-a', code: 'mounted-on-ready-node' })]);
  });

  it.each([
    { case: 'OUT_OF_SERVICE_TAINT is off', taintsPort: true, outOfServiceTaint: false },
    { case: 'no taint writer is wired', taintsPort: false, outOfServiceTaint: undefined },
  ])('places no taint when $case: the mounted volume waits for the kubelet, and nothing fails', async (options) => {
    const { taints, ec2, pass } = world({ nodes: [readyWithMountedVolume()], states: { 'node-a': 'stopped' }, ...options });

    const report = await pass();

    expect(taints.asked).toEqual([]);
    expect(ec2.calls).toEqual([]);
    expect(report.reportErrors).toEqual([]);
    expect(report.deferred).toEqual([expect.objectContaining({ volumeId: V, nodeName: 'node-a', code: 'mounted-on-ready-node' })]);
  });

  it.each([
    { case: '', outOfServiceTaint: undefined },
    { case: ' (also with OUT_OF_SERVICE_TAINT off)', outOfServiceTaint: false },
  ])(
    'removes our taint, and only ours, when the instance runs again: the volume mounted there then waits for the kubelet$case',
    async ({ outOfServiceTaint }) => {
      const { taints, ec2, pass } = world({ nodes: [taintedByUs()], states: { 'node-a': 'running' }, outOfServiceTaint });

      const report = await pass();

      expect(taints.writes).toEqual([{ node: 'node-a', taints: [DEDICATED], mark: null }]);
      expect(ec2.calls).toEqual([]);
      expect(report.deferred).toEqual([expect.objectContaining({ volumeId: V, nodeName: 'node-a', code: 'mounted-on-ready-node' })]);
    },
  );

  it.each<{ case: string; node: () => KubeNode; state: InstanceState }>([
    { case: 'its instance runs', node: readyWithMountedVolume, state: 'running' },
    { case: 'its instance is stopping (decided when EC2 reports it stopped)', node: readyWithMountedVolume, state: 'stopping' },
    {
      case: 'it is already tainted out of service by someone else',
      node: () => node('node-a', { outOfService: true, inUse: [V] }),
      state: 'stopped',
    },
    { case: 'it names no EC2 instance', node: () => node('node-a', { providerID: null, inUse: [V] }), state: 'stopped' },
  ])('asks Kubernetes nothing about a node when $case', async ({ node: nodeA, state }) => {
    const { taints, pass } = world({ nodes: [nodeA()], states: { 'node-a': state } });

    await pass();

    expect(taints.asked).toEqual([]);
  });

  it('decides again on the live node: one tainted out of service since the pass read it is not tainted twice', async () => {
    const { taints, pass } = world({ nodes: [readyWithMountedVolume()], states: { 'node-a': 'stopped' } });
    taints.live[0]!.spec!.taints = [DEDICATED, { key: OUR_TAINT.key, value: 'operator', effect: 'NoExecute' }];

    const report = await pass();

    expect(taints.asked).toEqual(['node-a']);
    expect(taints.writes).toEqual([]);
    expect(report.reportErrors).toEqual([]);
  });

  it('writes down a failed taint write, naming the node, and carries on with the pass', async () => {
    const { taints, pass } = world({ nodes: [readyWithMountedVolume()], states: { 'node-a': 'stopped' } });
    taints.failure = new Error('nodes is forbidden');

    const report = await pass();

    expect(report.reportErrors).toEqual([matching(/node-a.*nodes is forbidden/)]);
    expect(report.deferred).toEqual([expect.objectContaining({ volumeId: V, nodeName: 'node-a', code: 'mounted-on-ready-node' })]);
  });
});
