/**
 * The attacher full pass as a whole: when it verifies against EC2 (and remembers it did), which
 * instances and volumes it asks about, when it taints dead nodes out of service and counts
 * attachments nobody asks for, what its report says, and what a dry run (the sidecar's shadow) asks EC2.
 */
import { describe, expect, it } from 'vitest';
import type { KubeVolumeAttachment } from '../../../lambda/core/kube.js';
import type { InstanceId, VolumeRecord } from '../../../lambda/core/types.js';
import type { SeenInstance } from '../../../lambda/ports/block-storage.js';
import type { NodeTaints } from '../../../lambda/ports/node-taints.js';
import type { VolumeStore } from '../../../lambda/ports/volume-store.js';
import { attacherFullPass, runAttacherFullPass } from '../../../lambda/reconcile/attacher/full-pass.js';
import type { PassOptions } from '../../../lambda/reconcile/pass/types.js';
import { csiNode, kcmVa } from '../../core/attacher/builders.js';
import { attachment, instanceOf, node, pv, record, T0, vol } from '../../core/builders.js';
import { FakeBlockStorage, FakeCluster, FakeStore, fakeDeps } from '../../support/fake-ports.js';

const V = vol(1);
const I = instanceOf('node-a');
const budget = { deadline: T0 + 60_000 };

/** node-a (when `nodes`), PV pv-data of V, the given objects and records; EC2 calls about instances and taint edits are kept. */
function world(vas: KubeVolumeAttachment[], records: VolumeRecord[] = [], o: { nodes?: boolean; stopped?: boolean } = {}) {
  const nodes = o.nodes === false ? [] : [node('node-a')];
  const cluster = new FakeCluster({ nodes, pods: [], pvcs: [], pvs: [pv('pv-data')], volumeAttachments: vas });
  cluster.csiNodes = nodes.length === 0 ? [] : [csiNode('node-a')];
  const store = new FakeStore();
  for (const r of records) store.items.set(r.volumeId, structuredClone(r));
  const blockStorage = new FakeBlockStorage();
  const instancesAsked: InstanceId[][] = [];
  blockStorage.observeInstances = (ids) => {
    instancesAsked.push([...ids]);
    const state = o.stopped ? 'stopped' : 'running';
    return Promise.resolve(new Map<InstanceId, SeenInstance | 'missing'>(ids.map((id) => [id, { state, mappings: [] }])));
  };
  const tainted: string[] = [];
  const nodeTaints: NodeTaints = {
    editTaints: (name, edit) => {
      const live = cluster.snapshot.nodes.find((n) => n.metadata.name === name);
      if (live === undefined) return Promise.resolve('node-gone');
      if (edit(live) === undefined) return Promise.resolve('unchanged');
      tainted.push(name);
      return Promise.resolve('updated');
    },
  };
  const warnings: { message: string; extra: Record<string, unknown> }[] = [];
  const log = {
    debug: () => undefined,
    info: () => undefined,
    error: () => undefined,
    warn: (message: string, extra?: object) => void warnings.push({ message, extra: { ...extra } }),
  };
  let ids = 0;
  const deps = fakeDeps({ cluster, store, blockStorage, nodeTaints, log, newId: () => `new-${++ids}` });
  const pass = (options: PassOptions = {}, ask?: InstanceId[]) => runAttacherFullPass(deps, budget, options, ask);
  return { cluster, store, blockStorage, instancesAsked, tainted, warnings, deps, pass };
}

/** What the csi-attacher sidecar left on an object it attached. */
const sidecarAttached = () => kcmVa('node-a', { claimed: true, attached: true, devicePath: '/dev/xvdaa' });
const ec2Shows = { volumeId: V, exists: true, attachments: [{ instanceId: I, state: 'attached' as const, device: '/dev/xvdaa' }] };
/** Ours, attached and reported on node-a. */
const ours = () => record(V, [attachment('node-a')]);

describe('the pass id', () => {
  it.each([
    ['the one the caller gave', { passId: 'from-the-event' }, 'from-the-event'],
    ['a new one otherwise', {}, 'new-1'],
  ])('is %s', async (_, options, passId) => {
    const w = world([sidecarAttached()], [ours()]);

    expect((await w.pass(options)).passId).toBe(passId);
  });
});

describe('verification against EC2, every sync period', () => {
  it('due and answered: verified, remembered as of the pass start (no takeover seeding is claimed)', async () => {
    const w = world([sidecarAttached()], [ours()]);
    w.blockStorage.volumes.set(V, ec2Shows);

    const report = await w.pass();

    expect(report).toMatchObject({ verified: true, seeded: false, converged: true });
    expect(w.blockStorage.describes).toEqual([[V]]);
    expect(w.instancesAsked).toEqual([[I]]);
    expect(w.store.state).toEqual({ version: 1, lastVerifiedAt: T0, completeAt: T0 });
  });

  it('due but EC2 does not answer: not verified, the last verification stays', async () => {
    const w = world([sidecarAttached()], [ours()]);
    w.blockStorage.describeVolumes = () => Promise.reject(new Error('RequestLimitExceeded'));

    const report = await w.pass();

    expect(report.verified).toBe(false);
    expect(w.store.state).toEqual({ version: 0 });
  });

  it('not due: EC2 asked only about what the sidecar left to adopt, and that does not count as a verification', async () => {
    const w = world([sidecarAttached()]);
    w.store.state = { version: 1, lastVerifiedAt: T0 - 1_000 };
    w.blockStorage.volumes.set(V, ec2Shows);

    const report = await w.pass();

    expect(w.blockStorage.describes).toEqual([[V]]);
    expect(w.instancesAsked).toEqual([]);
    expect(report.verified).toBe(false);
    expect(w.store.state).toEqual({ version: 1, lastVerifiedAt: T0 - 1_000 });
  });

  it('due with nothing anywhere to ask about: EC2 is not called and nothing is claimed verified', async () => {
    const w = world([], [], { nodes: false });

    const report = await w.pass();

    expect(w.blockStorage.describes).toEqual([]);
    expect(w.instancesAsked).toEqual([]);
    expect(report.verified).toBe(false);
    expect(w.store.state).toEqual({ version: 0 });
  });
});

describe('instances asked about in any case (an EC2 state-change event’s)', () => {
  it.each([
    ['runAttacherFullPass', (w: ReturnType<typeof world>, ask?: InstanceId[]) => w.pass({}, ask)],
    [
      'attacherFullPass',
      async (w: ReturnType<typeof world>, ask?: InstanceId[]) => (await attacherFullPass(w.deps, budget, {}, ask)).report,
    ],
  ])('%s between verifications asks EC2 about exactly the instances it is given, none when given none', async (_, run) => {
    const asked = world([sidecarAttached()], [ours()]);
    asked.store.state = { version: 1, lastVerifiedAt: T0 - 1_000 };
    const quiet = world([sidecarAttached()], [ours()]);
    quiet.store.state = { version: 1, lastVerifiedAt: T0 - 1_000 };

    await run(asked, [I]);
    await run(quiet);

    expect(asked.instancesAsked).toEqual([[I]]);
    expect(quiet.instancesAsked).toEqual([]);
    expect(quiet.blockStorage.describes).toEqual([]);
  });
});

describe('the out-of-service taint of a node whose instance EC2 shows stopped', () => {
  it('a pass that writes over a complete read taints it', async () => {
    const w = world([sidecarAttached()], [ours()], { stopped: true });

    await w.pass();

    expect(w.tainted).toEqual(['node-a']);
  });

  it('a dry run does not', async () => {
    const w = world([sidecarAttached()], [ours()], { stopped: true });

    await w.pass({ dryRun: true });

    expect(w.instancesAsked).toEqual([[I]]);
    expect(w.tainted).toEqual([]);
  });
});

describe('attachments no VolumeAttachment asks for', () => {
  it('a pass that writes over a complete read counts each, logs it with its volume, node and instance, and leaves it attached', async () => {
    const w = world([], [ours()]);
    w.blockStorage.volumes.set(V, ec2Shows);

    const report = await w.pass();

    expect(report.unwantedAttachments).toBe(1);
    expect(w.warnings.map((x) => x.extra)).toContainEqual({ volumeId: V, nodeName: 'node-a', instanceId: I, state: 'attached' });
    expect(w.blockStorage.calls).toEqual([]);
  });

  it('none: counted as zero', async () => {
    const w = world([sidecarAttached()], [ours()]);
    w.blockStorage.volumes.set(V, ec2Shows);

    expect((await w.pass()).unwantedAttachments).toBe(0);
  });

  it.each([
    ['a dry run', (_: FakeCluster) => undefined, { dryRun: true }],
    ['a pass over an unreadable cluster', (c: FakeCluster) => (c.readAttacherView = () => Promise.reject(new Error('403 Forbidden'))), {}],
  ])('%s counts nothing', async (_, spoil, options) => {
    const w = world([], [ours()]);
    w.blockStorage.volumes.set(V, ec2Shows);
    spoil(w.cluster);

    const report = await w.pass(options);

    expect(report).not.toHaveProperty('unwantedAttachments');
  });
});

describe('the report', () => {
  it('an unreadable cluster: its error is in the report; a readable one reports none', async () => {
    const unreadable = world([sidecarAttached()], [ours()]);
    unreadable.cluster.readAttacherView = () => Promise.reject(new Error('403 Forbidden'));
    const readable = world([sidecarAttached()], [ours()]);

    const [bad, good] = [await unreadable.pass(), await readable.pass()];

    expect(bad).toMatchObject({ clusterComplete: false, clusterError: expect.stringContaining('403 Forbidden') as string });
    expect(good).not.toHaveProperty('clusterError');
  });

  it('problems: each object that cannot be acted on (kubernetes) and each unreadable store item (dynamodb)', async () => {
    const w = world([kcmVa('node-a', { pv: 'pv-missing' })]);
    const store: VolumeStore = w.store;
    const scan = store.scan.bind(store);
    store.scan = async () => ({ ...(await scan()), corrupt: [{ key: 'vol-bad', problem: 'no uniqueName' }] });

    const report = await w.pass();

    expect(report.problems).toEqual([
      { source: 'kubernetes', message: expect.stringContaining('VolumeAttachment csi-pv-missing-node-a') as string },
      { source: 'dynamodb', message: expect.stringMatching(/vol-bad.*no uniqueName/) as string },
    ]);
  });
});

describe('a dry run, the shadow of the sidecar: EC2 asked about every volume a VolumeAttachment names', () => {
  it('an inline volume no PV names is asked about; an object naming no volume adds nothing', async () => {
    const inline = vol(7);
    const w = world([kcmVa('node-a', { inline: { volumeHandle: inline } }), kcmVa('node-a', { pv: 'pv-missing' })]);
    w.store.state = { version: 1, lastVerifiedAt: T0 };

    await w.pass({ dryRun: true });

    expect(w.blockStorage.describes).toEqual([[V, inline].sort()]);
  });

  it('a pass that writes asks only what its verification needs', async () => {
    const w = world([kcmVa('node-a', { pv: 'pv-missing' })]);
    w.store.state = { version: 1, lastVerifiedAt: T0 };

    await w.pass();

    expect(w.blockStorage.describes).toEqual([]);
  });
});
