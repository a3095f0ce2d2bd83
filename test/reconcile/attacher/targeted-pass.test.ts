/**
 * The attacher's targeted pass (attacher/targeted-pass.ts): a pod's `Scheduled` event names the
 * VolumeAttachments kcm will create; the pass polls exactly those, reads the pod's node alongside,
 * and attaches what appeared, nothing else. Any other target runs the full pass; an instance's runs
 * it with EC2 asked about the instance.
 */
import { describe, expect, it } from 'vitest';
import { volumeAttachmentName } from '../../../lambda/adapters/kubernetes/volume-attachment-name.js';
import type { KubeVolumeAttachment } from '../../../lambda/core/kube.js';
import type { InstanceId } from '../../../lambda/core/types.js';
import { runAttacherTargetedPass } from '../../../lambda/reconcile/attacher/targeted-pass.js';
import type { VolumeStore } from '../../../lambda/ports/volume-store.js';
import type { PassOptions, Target } from '../../../lambda/reconcile/pass/types.js';
import { csiNode, kcmVa } from '../../core/attacher/builders.js';
import { attachment, instanceOf, node, pod, pv, pvc, record, T0, vol } from '../../core/builders.js';
import { FakeBlockStorage, FakeCluster, FakeStore, fakeDeps } from '../../support/fake-ports.js';

const budget = { deadline: T0 + 60_000 };
const V = vol(1);
/** The name kcm gives the VolumeAttachment of the pod's volume on node-a, as the kubelet computes it. */
const VA = volumeAttachmentName(V, 'node-a');
const LOGS = volumeAttachmentName(vol(2), 'node-a');
const podTarget: Target = { kind: 'pod', namespace: 'default', name: 'db-0' };

const named = (object: KubeVolumeAttachment, name: string): KubeVolumeAttachment => ({
  ...object,
  metadata: { ...object.metadata, name },
});

/**
 * db-0 on node-a mounts the claims given (`data`: pv-data, volume 1; `logs`: pv-logs, volume 2).
 * kcm's VolumeAttachment for each volume appears at the given read of its name (`data` at the first
 * by default; never when 0); time passes only while the pass sleeps. Another VolumeAttachment (pv-logs, on node-b) is no business of the
 * pod's. Every read and sleep is written down in order in `calls`; a poll without end fails.
 */
function world(
  o: { appearsAt?: number; logsAt?: number; podOn?: string | null; claims?: string[]; csiNodeOfA?: boolean; nodeA?: boolean } = {},
) {
  const cluster = new FakeCluster({
    nodes: [...(o.nodeA === false ? [] : [node('node-a')]), node('node-b')],
    pods: [pod('db-0', { node: o.podOn, claims: o.claims ?? ['data'] })],
    pvcs: [pvc('data'), pvc('logs')],
    pvs: [pv('pv-data'), pv('pv-logs', { volumeId: vol(2) })],
    volumeAttachments: [kcmVa('node-b', { pv: 'pv-logs' })],
  });
  cluster.csiNodes = [...(o.csiNodeOfA === false ? [] : [csiNode('node-a')]), csiNode('node-b')];
  const calls: string[] = [];
  const note = (call: string) => {
    calls.push(call);
    if (calls.length > 50) throw new Error('polled without end');
  };
  const kcm = new Map([
    [VA, { at: o.appearsAt ?? 1, reads: 0, object: () => named(kcmVa('node-a'), VA) }],
    [LOGS, { at: o.logsAt ?? 1, reads: 0, object: () => named(kcmVa('node-a', { pv: 'pv-logs' }), LOGS) }],
  ]);
  const readVolumeAttachment = cluster.readVolumeAttachment.bind(cluster);
  cluster.readVolumeAttachment = (name) => {
    note(`va ${name === VA ? 'VA' : name === LOGS ? 'LOGS' : name}`);
    const appearing = kcm.get(name);
    if (appearing !== undefined && ++appearing.reads === appearing.at) cluster.snapshot.volumeAttachments.push(appearing.object());
    return readVolumeAttachment(name);
  };
  const readCsiNode = cluster.readCsiNode.bind(cluster);
  cluster.readCsiNode = (name) => (calls.push(`csinode ${name}`), readCsiNode(name));
  const readNode = cluster.readNode.bind(cluster);
  cluster.readNode = (name) => (calls.push(`node ${name}`), readNode(name));
  const readPv = cluster.readPv.bind(cluster);
  cluster.readPv = (name) => (calls.push(`pv ${name}`), readPv(name));
  const store = new FakeStore();
  const blockStorage = new FakeBlockStorage();
  let ids = 0;
  let now = T0;
  const deps = fakeDeps({
    cluster,
    store,
    blockStorage,
    newId: () => `made-up-${++ids}`,
    // Sleeping is all the time that passes.
    clock: () => now,
    sleep: (ms) => (note(`sleep ${ms}`), (now += ms), Promise.resolve()),
  });
  const pass = (target: Target = podTarget, options?: PassOptions) => runAttacherTargetedPass(deps, target, budget, options);
  return { cluster, store, blockStorage, deps, calls, pass };
}

describe("the attacher's targeted pass for a scheduled pod", () => {
  it("attaches the pod's VolumeAttachment once it appears, reading the node's CSINode and Node while polling", async () => {
    const w = world({ appearsAt: 2 });

    const report = await w.pass();

    expect(w.calls).toEqual(['va VA', 'csinode node-a', 'node node-a', 'sleep 200', 'va VA']);
    expect(w.blockStorage.calls).toEqual([`attach ${V}`, 'wait attached']);
    expect(w.cluster.attacherWrites).toEqual([
      'pv+ pv-data',
      `claim ${VA} ${instanceOf('node-a')}`,
      `status ${VA} {"attached":true,"attachmentMetadata":{"devicePath":"/dev/xvdaa"},"attachError":null}`,
      `event ${VA} SuccessfulAttachVolume`,
    ]);
    expect(w.store.items.get(V)?.attachments['node-a']).toMatchObject({ state: 'attached', instanceId: instanceOf('node-a') });
    expect(report).toMatchObject({
      passId: 'made-up-1',
      kind: 'targeted',
      target: podTarget,
      startedAt: T0,
      dryRun: false,
      clusterComplete: true,
      verified: true,
      seeded: false,
      problems: [],
      converged: true,
    });
    expect(w.blockStorage.describes).toEqual([[V]]);
  });

  it("leaves alone VolumeAttachments the pod does not name, and carries the caller's pass id", async () => {
    const w = world();

    const report = await w.pass(podTarget, { passId: 'event-42' });

    expect(report.passId).toBe('event-42');
    expect(w.blockStorage.calls).toEqual([`attach ${V}`, 'wait attached']);
    expect(w.cluster.attacherWrites.some((write) => write.includes('pv-logs'))).toBe(false);
  });

  it('a VolumeAttachment that never appears: polls until attacherWaitMs, then attaches nothing', async () => {
    const w = world({ appearsAt: 0 });

    const report = await w.pass();

    expect(w.calls.filter((c) => c.startsWith('sleep'))).toEqual(['sleep 200', 'sleep 300', 'sleep 450', 'sleep 675', 'sleep 375']);
    expect(w.blockStorage.calls).toEqual([]);
    expect(w.cluster.attacherWrites).toEqual([]);
    expect(report).toMatchObject({ kind: 'targeted', verified: false, actions: [], converged: true });
  });

  it('a pod with two volumes: each VolumeAttachment is read until it appears, and not after', async () => {
    const w = world({ claims: ['data', 'logs'], logsAt: 3 });

    await w.pass();

    expect(w.calls.filter((c) => c.startsWith('va') || c.startsWith('sleep'))).toEqual([
      // The handles sort as the kubelet would name them; either order reads each name until found.
      ...(VA < LOGS ? ['va VA', 'va LOGS'] : ['va LOGS', 'va VA']),
      'sleep 200',
      'va LOGS',
      'sleep 300',
      'va LOGS',
    ]);
    expect([...w.blockStorage.calls].sort()).toEqual([`attach ${V}`, `attach ${vol(2)}`, 'wait attached', 'wait attached']);
  });

  it("a node whose Node object is gone but whose CSINode is registered: the CSINode's instance is attached to", async () => {
    const w = world({ nodeA: false });

    await w.pass();

    expect(w.blockStorage.calls).toEqual([`attach ${V}`, 'wait attached']);
  });

  it('a dry run plans the attach and changes nothing: no EC2 call, no Kubernetes write, no store item', async () => {
    const w = world();

    const report = await w.pass(podTarget, { dryRun: true });

    expect(report).toMatchObject({ dryRun: true, kind: 'targeted', converged: false });
    expect(report.actions.map((a) => `${a.kind} ${a.volumeId} ${a.nodeName}`)).toEqual([`attach ${V} node-a`]);
    expect(w.blockStorage.calls).toEqual([]);
    expect(w.cluster.attacherWrites).toEqual([]);
    expect(w.store.items.size).toBe(0);
  });

  it('a node whose CSINode the EBS plugin has not registered yet: the object gets an attachError, EC2 is not called', async () => {
    const w = world({ csiNodeOfA: false });

    const report = await w.pass();

    expect(w.blockStorage.calls).toEqual([]);
    expect(w.cluster.attacherWrites).toEqual([
      expect.stringMatching(new RegExp(`^status ${VA} \\{"attachError":\\{.*CSINode node-a has no ebs.csi.aws.com driver registered`)),
    ]);
    expect(report.problems).toEqual([
      { source: 'kubernetes', message: `VolumeAttachment ${VA}: CSINode node-a has no ebs.csi.aws.com driver registered` },
    ]);
  });

  it('a corrupt store item of the volume is a dynamodb problem of the report', async () => {
    const w = world();
    const store: VolumeStore = w.store;
    const getMany = store.getMany.bind(store);
    store.getMany = async (ids) => ({ ...(await getMany(ids)), corrupt: [{ key: V, problem: 'no version' }] });

    const report = await w.pass();

    expect(report.problems).toEqual([{ source: 'dynamodb', message: `item ${V}: no version` }]);
  });

  it.each([
    ['the pod is gone', { kind: 'pod' as const, namespace: 'default', name: 'gone-0' }, {}],
    ['the pod is not scheduled yet', podTarget, { podOn: null }],
    ['the pod mounts no EBS volume', podTarget, { claims: [] }],
  ])('%s: nothing is read or attached, and the pass says so', async (_case, target, o) => {
    const w = world(o);

    const report = await w.pass(target);

    expect(w.calls).toEqual([]);
    expect(w.blockStorage.calls).toEqual([]);
    expect(w.blockStorage.describes).toEqual([]);
    expect(report).toMatchObject({ kind: 'targeted', target, verified: false, actions: [], converged: true });
  });
});

describe('targets other than a pod', () => {
  it.each([
    ['a node', { kind: 'node', name: 'node-b' }],
    ['a volume', { kind: 'volume', volumeId: vol(2) }],
  ] as [string, Target][])('%s runs the full attacher pass: every VolumeAttachment is acted on', async (_case, target) => {
    const w = world({ appearsAt: 0 });

    const report = await w.pass(target);

    expect(report).toMatchObject({ kind: 'full', target });
    expect(w.blockStorage.calls).toEqual([`attach ${vol(2)}`, 'wait attached']);
    expect(w.calls.filter((c) => c.startsWith('va'))).toEqual([]);
  });

  it('an instance runs the full pass with EC2 asked about the instance, and follows nothing when it runs', async () => {
    const w = world({ appearsAt: 0 });
    w.store.state = { version: 1, lastVerifiedAt: T0 }; // no verification due: EC2 is asked only because of the event
    const asked: InstanceId[][] = [];
    const observe = w.blockStorage.observeInstances.bind(w.blockStorage);
    w.blockStorage.observeInstances = (ids) => (asked.push([...ids]), observe(ids));
    const target: Target = { kind: 'instance', instanceId: 'i-0123456789abcdef0' };

    const report = await w.pass(target);

    expect(report).toMatchObject({ kind: 'full', target });
    expect(asked).toEqual([['i-0123456789abcdef0']]);
    expect(w.blockStorage.calls).toEqual([`attach ${vol(2)}`, 'wait attached']);
  });
});

describe('one VolumeAttachment named by the watcher (external-attacher: syncAttach / syncDetach)', () => {
  const NAME = 'csi-pv-data-node-a';
  const vaTarget: Target = { kind: 'volumeAttachment', name: NAME };

  /** kcm's object for volume 1 on node-a, as given; volume 2 is attached to node-a too, with no object of its own. */
  function watched(object: KubeVolumeAttachment | undefined, attached: { v1?: boolean } = {}) {
    const w = world({ appearsAt: 0 });
    w.cluster.snapshot.volumeAttachments = object === undefined ? [] : [object];
    const onA = { instanceId: instanceOf('node-a'), state: 'attached' as const, device: '/dev/xvdaa' };
    for (const [volumeId, on] of [
      [V, attached.v1 === true],
      [vol(2), true],
    ] as const) {
      if (!on) continue;
      w.blockStorage.volumes.set(volumeId, { volumeId, exists: true, attachments: [onA] });
      w.store.items.set(volumeId, record(volumeId, [attachment('node-a')]));
    }
    return w;
  }

  it('a live object not attached yet: read by name, then attached and reported, as syncAttach does', async () => {
    const w = watched(kcmVa('node-a'));

    const report = await w.pass(vaTarget);

    expect(w.calls).toEqual([`va ${NAME}`, 'pv pv-data', 'csinode node-a', 'node node-a']);
    expect(w.blockStorage.calls).toEqual([`attach ${V}`, 'wait attached']);
    expect(w.cluster.attacherWrites).toEqual([
      'pv+ pv-data',
      `claim ${NAME} ${instanceOf('node-a')}`,
      `status ${NAME} {"attached":true,"attachmentMetadata":{"devicePath":"/dev/xvdaa"},"attachError":null}`,
      `event ${NAME} SuccessfulAttachVolume`,
    ]);
    expect(report).toMatchObject({ kind: 'targeted', target: vaTarget, converged: true });
  });

  it('one kcm is deleting, with our finalizer: detached from its node and let go, as syncDetach does; the node keeps its other volume', async () => {
    const w = watched(kcmVa('node-a', { claimed: true, deleting: true }), { v1: true });

    const report = await w.pass(vaTarget);

    expect(w.blockStorage.calls).toEqual([`detach ${V}`, 'wait detached']);
    expect(w.cluster.attacherWrites).toEqual([
      `release ${NAME}`,
      `status ${NAME} {"attached":false,"attachmentMetadata":null,"detachError":null}`,
    ]);
    expect(w.store.items.get(vol(2))?.attachments['node-a']).toMatchObject({ state: 'attached' });
    expect(report.actions.map((a) => `${a.kind} ${a.volumeId}`)).toEqual([`detach ${V}`]);
  });

  it("a live object with the watcher's cached PV, CSINode and Node: attached without a read of the API server", async () => {
    const w = watched(kcmVa('node-a'));
    const known = { pvs: [pv('pv-data')], csiNodes: [csiNode('node-a')], nodes: [node('node-a')] };

    await w.pass({ ...vaTarget, seen: kcmVa('node-a'), known });

    expect(w.calls).toEqual([]);
    expect(w.blockStorage.calls).toEqual([`attach ${V}`, 'wait attached']);
    expect(w.cluster.attacherWrites.slice(0, 2)).toEqual(['pv+ pv-data', `claim ${NAME} ${instanceOf('node-a')}`]);
  });

  it('admitted late (the handover entry written meanwhile): EC2 and the store are read before admission, nothing acts until it', async () => {
    const w = watched(kcmVa('node-a'));
    let admit: (act: boolean) => void = () => undefined;
    const admission = new Promise<boolean>((resolve) => (admit = resolve));
    const known = { pvs: [pv('pv-data')], csiNodes: [csiNode('node-a')], nodes: [node('node-a')] };

    const passing = runAttacherTargetedPass(w.deps, { ...vaTarget, seen: kcmVa('node-a'), known }, budget, { admission });
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    const before = { describes: w.blockStorage.describes.length, writes: [...w.cluster.attacherWrites], ec2: [...w.blockStorage.calls] };
    admit(true);
    const report = await passing;

    expect(before).toEqual({ describes: 1, writes: [], ec2: [] });
    expect(w.blockStorage.calls).toEqual([`attach ${V}`, 'wait attached']);
    expect(report.dryRun).toBe(false);
  });

  it('admitted late to plan only (writes off, fenced): a dry run, nothing written', async () => {
    const w = watched(kcmVa('node-a'));

    const report = await runAttacherTargetedPass(w.deps, { ...vaTarget, seen: kcmVa('node-a') }, budget, {
      admission: Promise.resolve(false),
    });

    expect(report).toMatchObject({ dryRun: true });
    expect(report.actions.map((a) => a.kind)).toEqual(['attach']);
    expect(w.blockStorage.calls).toEqual([]);
    expect(w.cluster.attacherWrites).toEqual([]);
    expect(w.store.items.get(V)).toBeUndefined();
  });

  it('a pass body that cannot read before admission (any other target) waits for it first: refused, it only plans', async () => {
    const w = world();

    const report = await runAttacherTargetedPass(w.deps, podTarget, budget, { admission: Promise.resolve(false) });

    expect(report).toMatchObject({ dryRun: true });
    expect(w.blockStorage.calls).toEqual([]);
    expect(w.cluster.attacherWrites).toEqual([]);
  });

  it('one being deleted never acts on cached objects: a stale PV and CSINode are ignored, its objects are read live', async () => {
    const w = watched(kcmVa('node-a', { claimed: true, deleting: true }), { v1: true });
    const stale = { pvs: [pv('pv-data', { volumeId: vol(9) })], csiNodes: [csiNode('node-a', 'i-0stale0000000000')], nodes: [] };

    await w.pass({ ...vaTarget, seen: kcmVa('node-a', { claimed: true, deleting: true }), known: stale });

    expect(w.calls).toEqual(['pv pv-data', 'csinode node-a', 'node node-a']);
    expect(w.blockStorage.calls).toEqual([`detach ${V}`, 'wait detached']);
  });

  it.each([
    ['being deleted without our finalizer (never ours to attach)', kcmVa('node-a', { deleting: true }), ['va', 'pv', 'csinode', 'node']],
    ['gone', undefined, ['va']],
  ])('one %s: nothing to do, no EC2 mutation', async (_case, object, reads) => {
    const w = watched(object, { v1: true });

    const report = await w.pass(vaTarget);

    expect(w.calls.map((c) => c.split(' ')[0])).toEqual(reads);
    expect(w.blockStorage.calls).toEqual([]);
    expect(w.cluster.attacherWrites).toEqual([]);
    expect(report).toMatchObject({ kind: 'targeted', target: vaTarget, actions: [] });
  });
});
