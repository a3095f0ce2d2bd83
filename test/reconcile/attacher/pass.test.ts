/**
 * The attacher pass over fakes: the exact order of Kubernetes writes around EC2, as
 * external-attacher makes them, and what happens when kcm changes its mind mid-attach.
 */
import { describe, expect, it } from 'vitest';
import { runAttacherFullPass } from '../../../lambda/reconcile/attacher/full-pass.js';
import { actualOf, attachment, instanceOf, node, pv, record, T0, vol } from '../../core/builders.js';
import { csiNode, kcmVa } from '../../core/attacher/builders.js';
import { FakeBlockStorage, FakeCluster, FakeStore, fakeDeps } from '../../support/fake-ports.js';

const V = vol(1);
const VA = 'csi-pv-data-node-a';
const budget = { deadline: T0 + 60_000 };

function setup(vas = [kcmVa('node-a')], records = actualOf()) {
  const cluster = new FakeCluster({ nodes: [node('node-a')], pods: [], pvcs: [], pvs: [pv('pv-data')], volumeAttachments: vas });
  cluster.csiNodes = [csiNode('node-a')];
  const store = new FakeStore();
  for (const r of records.values()) store.items.set(r.volumeId, r);
  const blockStorage = new FakeBlockStorage();
  return { cluster, store, blockStorage, deps: fakeDeps({ cluster, store, blockStorage }) };
}

describe('the attacher pass: writes around EC2', () => {
  it('attach: PV finalizer, then VA finalizer + node id in one patch, then EC2, then status, then the event', async () => {
    const { cluster, blockStorage, deps } = setup();

    const report = await runAttacherFullPass(deps, budget);

    expect(report.converged).toBe(true);
    expect(cluster.attacherWrites).toEqual([
      'pv+ pv-data',
      `claim ${VA} ${instanceOf('node-a')}`,
      `status ${VA} {"attached":true,"attachmentMetadata":{"devicePath":"/dev/xvdaa"},"attachError":null}`,
      `event ${VA} SuccessfulAttachVolume`,
    ]);
    expect(blockStorage.calls).toEqual([`attach ${V}`, 'wait attached']);
    expect(cluster.statusWrites).toEqual([]);
  });

  it('detach: EC2, then the finalizer off, then the status', async () => {
    const { cluster, blockStorage, deps } = setup(
      [kcmVa('node-a', { deleting: true, claimed: true })],
      actualOf(record(V, [attachment('node-a')])),
    );
    blockStorage.volumes.set(V, {
      volumeId: V,
      exists: true,
      attachments: [{ instanceId: instanceOf('node-a'), state: 'attached', device: '/dev/xvdaa' }],
    });

    await runAttacherFullPass(deps, budget);

    expect(blockStorage.calls).toEqual([`detach ${V}`, 'wait detached']);
    expect(cluster.attacherWrites).toEqual([
      `release ${VA}`,
      `status ${VA} {"attached":false,"attachmentMetadata":null,"detachError":null}`,
    ]);
  });

  it('a deleting object with nothing behind it in EC2: let go without a DetachVolume', async () => {
    const { cluster, blockStorage, deps } = setup([kcmVa('node-a', { deleting: true, claimed: true })]);

    await runAttacherFullPass(deps, budget);

    expect(blockStorage.calls).toEqual([]);
    expect(cluster.attacherWrites).toEqual([
      `release ${VA}`,
      `status ${VA} {"attached":false,"attachmentMetadata":null,"detachError":null}`,
    ]);
  });

  it('a VolumeAttachment kcm deletes while the attach starts: no EC2 call, no status', async () => {
    const { cluster, blockStorage, deps } = setup();
    cluster.claimVolumeAttachment = () => Promise.resolve('deleting' as const);

    const report = await runAttacherFullPass(deps, budget);

    expect(blockStorage.calls).toEqual([]);
    expect(report.results).toEqual([expect.objectContaining({ outcome: 'failed', detail: `VolumeAttachment ${VA} is being deleted` })]);
    expect(cluster.attacherWrites).toEqual(['pv+ pv-data']);
  });

  it('the intent written beside the finalizer patches is abandoned when they refuse: the lock released, no backoff counted', async () => {
    const { cluster, store, blockStorage, deps } = setup();
    const claim = cluster.claimVolumeAttachment.bind(cluster);
    cluster.claimVolumeAttachment = () => Promise.resolve('deleting' as const);

    await runAttacherFullPass(deps, budget);

    expect(store.items.get(V)?.operations ?? {}).toEqual({});
    expect(store.items.get(V)?.attachments['node-a']).toBeUndefined();
    cluster.claimVolumeAttachment = claim;
    await runAttacherFullPass(deps, budget);
    expect(blockStorage.calls).toEqual([`attach ${V}`, 'wait attached']);
  });

  it('the device name is claimed while the VA finalizer patch is in flight; AttachVolume waits for the patch', async () => {
    const { cluster, store, blockStorage, deps } = setup();
    const claim = cluster.claimVolumeAttachment.bind(cluster);
    let patched: () => void = () => undefined;
    const seen: string[] = [];
    cluster.claimVolumeAttachment = (name, instanceId) =>
      new Promise((resolve) => {
        patched = () => resolve(claim(name, instanceId));
      });
    const passing = runAttacherFullPass(deps, budget);
    for (let i = 0; i < 50 && store.devices.size === 0; i++) await new Promise((resolve) => setImmediate(resolve));
    seen.push(`devices ${[...(store.devices.get(instanceOf('node-a'))?.keys() ?? [])].join(',')}`, `ec2 ${blockStorage.calls.length}`);
    patched();
    await passing;

    expect(seen).toEqual(['devices /dev/xvdaa', 'ec2 0']);
    expect(blockStorage.calls).toEqual([`attach ${V}`, 'wait attached']);
    expect(cluster.attacherWrites.slice(0, 2)).toEqual(['pv+ pv-data', `claim ${VA} ${instanceOf('node-a')}`]);
  });

  it('a VA finalizer patch refused after the name was claimed: nothing sent, the name and the lock let go', async () => {
    const { cluster, store, blockStorage, deps } = setup();
    cluster.claimVolumeAttachment = () => new Promise((resolve) => setTimeout(() => resolve('deleting' as const), 5));

    await runAttacherFullPass(deps, budget);

    expect(blockStorage.calls).toEqual([]);
    expect(store.devices.get(instanceOf('node-a'))?.size ?? 0).toBe(0);
    expect(store.items.get(V)?.operations ?? {}).toEqual({});
  });

  it('a PV kcm is deleting: attachError, no finalizer on the VA, no EC2 call', async () => {
    const { cluster, blockStorage, deps } = setup();
    cluster.snapshot.pvs = [{ ...pv('pv-data'), metadata: { name: 'pv-data', deletionTimestamp: new Date(T0) } }];

    await runAttacherFullPass(deps, budget);

    expect(blockStorage.calls).toEqual([]);
    expect(cluster.attacherWrites).toEqual([
      `status ${VA} {"attachError":{"time":"2026-01-01T00:00:00.000Z","message":"PersistentVolume pv-data is marked for deletion"}}`,
    ]);
  });

  it('an unreadable cluster: nothing written, nothing detached', async () => {
    const { cluster, blockStorage, deps } = setup(
      [kcmVa('node-a', { deleting: true, claimed: true })],
      actualOf(record(V, [attachment('node-a')])),
    );
    cluster.readAttacherView = () => Promise.reject(new Error('403 Forbidden'));

    const report = await runAttacherFullPass(deps, budget);

    expect(report).toMatchObject({ clusterComplete: false, converged: false });
    expect(blockStorage.calls).toEqual([]);
    expect(cluster.attacherWrites).toEqual([]);
  });
});

/** What the csi-attacher sidecar left behind on a VolumeAttachment it attached: our finalizer and annotation, and its status. */
function sidecarAttached(o: { deleting?: boolean } = {}) {
  const object = kcmVa('node-a', { claimed: true, ...o });
  return { ...object, status: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdba' } } };
}

const ec2ShowsOnNodeA = {
  volumeId: V,
  exists: true,
  attachments: [{ instanceId: instanceOf('node-a'), state: 'attached' as const, device: '/dev/xvdba' }],
};

describe('adopting what the csi-attacher sidecar attached (no record of ours)', () => {
  it.each([
    ['at a verification', undefined],
    ['between verifications (the sync period not yet over)', T0 - 1_000],
  ])(
    'an attached object EC2 confirms, %s: recorded attached, no EC2 mutating call, no write to the object',
    async (_when, lastVerifiedAt) => {
      const { cluster, store, blockStorage, deps } = setup([sidecarAttached()]);
      if (lastVerifiedAt !== undefined) store.state = { version: 1, lastVerifiedAt };
      blockStorage.volumes.set(V, ec2ShowsOnNodeA);

      const report = await runAttacherFullPass(deps, budget);

      expect(report.converged).toBe(true);
      expect(blockStorage.calls).toEqual([]);
      expect(cluster.attacherWrites).toEqual([]);
      expect(store.items.get(V)?.attachments['node-a']).toMatchObject({
        state: 'attached',
        device: '/dev/xvdba',
        instanceId: instanceOf('node-a'),
      });
    },
  );

  it('a deleting object EC2 still shows attached: recorded, detached through our intent, then let go', async () => {
    const { cluster, store, blockStorage, deps } = setup([sidecarAttached({ deleting: true })]);
    blockStorage.volumes.set(V, ec2ShowsOnNodeA);
    const intents: string[] = [];
    store.beforePut = (next) => intents.push(...Object.values(next.operations).map((op) => `${op.kind} ${op.nodeName}`));
    const detach = blockStorage.detach.bind(blockStorage);
    // DetachVolume is asked for beside the intent and sent on its go-ahead: the moment it is sent counts.
    blockStorage.detach = async (request) => {
      const why = await request.ready;
      if (why === undefined) intents.push('DetachVolume');
      return detach({ ...request, ready: Promise.resolve(why) });
    };

    await runAttacherFullPass(deps, budget);

    expect(blockStorage.calls).toEqual([`detach ${V}`, 'wait detached']);
    expect(intents.slice(0, 2)).toEqual(['detach node-a', 'DetachVolume']);
    expect(cluster.attacherWrites).toEqual([
      `release ${VA}`,
      `status ${VA} {"attached":false,"attachmentMetadata":null,"detachError":null}`,
    ]);
  });
});
