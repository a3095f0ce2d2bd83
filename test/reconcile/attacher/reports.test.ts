/**
 * How an attacher pass reports on kcm's VolumeAttachments, as external-attacher does: what it
 * refuses before EC2 (and says so in `attachError`), the status and event after an attach or a
 * detach, the errors of failed ones, and what the end of the pass corrects on objects it did not act on.
 */
import { describe, expect, it } from 'vitest';
import type { KubeVolumeAttachment, ObjectMeta } from '../../../lambda/core/kube.js';
import type { VolumeRecord } from '../../../lambda/core/types.js';
import type { AttachOutcome, DetachOutcome } from '../../../lambda/ports/block-storage.js';
import type { Cluster, ClusterEvent } from '../../../lambda/ports/cluster.js';
import { runAttacherFullPass } from '../../../lambda/reconcile/attacher/full-pass.js';
import { csiNode, kcmVa } from '../../core/attacher/builders.js';
import { attachment, instanceOf, MIN, node, op, pv, record, T0, vol } from '../../core/builders.js';
import { FakeBlockStorage, FakeCluster, FakeStore, fakeDeps } from '../../support/fake-ports.js';

const V = vol(1);
const VA = 'csi-pv-data-node-a';
const I = instanceOf('node-a');
const budget = { deadline: T0 + 60_000 };
const TIME = new Date(T0).toISOString();

/** One node, one PV, the given VolumeAttachments and records; events are kept whole, not just their reason. */
function world(vas: KubeVolumeAttachment[] = [kcmVa('node-a')], records: VolumeRecord[] = []) {
  const cluster = new FakeCluster({ nodes: [node('node-a')], pods: [], pvcs: [], pvs: [pv('pv-data')], volumeAttachments: vas });
  cluster.csiNodes = [csiNode('node-a')];
  const events: { va: { name: string; uid: string }; event: ClusterEvent }[] = [];
  const recordEvent = cluster.recordVolumeAttachmentEvent.bind(cluster);
  cluster.recordVolumeAttachmentEvent = (va: { name: string; uid: string }, event: ClusterEvent) => {
    events.push({ va, event });
    return recordEvent(va, event);
  };
  const store = new FakeStore();
  for (const r of records) store.items.set(r.volumeId, structuredClone(r));
  const blockStorage = new FakeBlockStorage();
  const deps = fakeDeps({ cluster, store, blockStorage });
  /** The same fake, typed as the port: a test replaces one of its answers. */
  const port: Cluster = cluster;
  return { cluster, port, store, blockStorage, events, deps, pass: () => runAttacherFullPass(deps, budget) };
}

/** EC2 shows the volume on node-a's instance in `state`. */
const ec2Shows = (state: 'attached' | 'attaching', attachTime?: number) => ({
  volumeId: V,
  exists: true,
  attachments: [{ instanceId: I, state, device: '/dev/xvdaa', ...(attachTime === undefined ? {} : { attachTime }) }],
});

describe('before EC2: the PV finalizer refused', () => {
  it.each([
    [
      'kcm started deleting the PV since the pass read it',
      () => Promise.resolve('deleting' as const),
      'PersistentVolume pv-data is marked for deletion',
    ],
    ['the PV vanished since the pass read it', () => Promise.resolve('gone' as const), 'PersistentVolume pv-data was not found'],
    ['the API server failed the patch', () => Promise.reject(new Error('etcdserver: request timed out')), 'etcdserver: request timed out'],
  ])('%s: no VA finalizer, no EC2 call, attachError and a FailedAttachVolume warning', async (_, answer, message) => {
    const w = world();
    w.port.addPvFinalizer = answer;

    const report = await w.pass();

    expect(w.blockStorage.calls).toEqual([]);
    expect(report.results).toEqual([expect.objectContaining({ kind: 'attach', outcome: 'failed', detail: message })]);
    expect(w.cluster.attacherWrites).toEqual([
      `status ${VA} ${JSON.stringify({ attachError: { time: TIME, message } })}`,
      `event ${VA} FailedAttachVolume`,
    ]);
    expect(w.events).toEqual([{ va: { name: VA, uid: `uid-${VA}` }, event: { type: 'Warning', reason: 'FailedAttachVolume', message } }]);
  });
});

describe('before EC2: the VolumeAttachment itself refused', () => {
  it.each([
    ['gone', `VolumeAttachment ${VA} is gone`],
    ['deleting', `VolumeAttachment ${VA} is being deleted`],
  ] as const)('a claim answered %s: the attach fails saying so, nothing is written to the object', async (answer, detail) => {
    const w = world();
    w.port.claimVolumeAttachment = () => Promise.resolve(answer);

    const report = await w.pass();

    expect(w.blockStorage.calls).toEqual([]);
    expect(report.results).toEqual([expect.objectContaining({ kind: 'attach', outcome: 'failed', detail })]);
    expect(w.cluster.attacherWrites).toEqual(['pv+ pv-data']);
    expect(w.events).toEqual([]);
  });
});

describe('before EC2: finalizers start from what the pass read', () => {
  it('the PV and VA patches are given this pass’s read of each object (no GET when unchanged)', async () => {
    const w = world();
    const given: [string, ObjectMeta | undefined][] = [];
    const addPvFinalizer = w.cluster.addPvFinalizer.bind(w.cluster);
    w.port.addPvFinalizer = (name, passRead) => (given.push([name, passRead]), addPvFinalizer(name));

    await w.pass();

    expect(given).toEqual([['pv-data', { name: 'pv-data' }]]);
    expect(w.blockStorage.calls).toEqual([`attach ${V}`, 'wait attached']);
  });

  it('an inline volume names no PV: no PV finalizer, the object claimed and attached', async () => {
    const inline = kcmVa('node-a', { inline: { volumeHandle: V } });
    const w = world([inline]);
    let pvPatches = 0;
    w.port.addPvFinalizer = () => (pvPatches++, Promise.resolve('added' as const));

    const report = await w.pass();

    expect(pvPatches).toBe(0);
    expect(report.results).toEqual([expect.objectContaining({ kind: 'attach', outcome: 'ok' })]);
    expect(w.cluster.attacherWrites.slice(0, 1)).toEqual([`claim ${inline.metadata.name} ${I}`]);
    expect(w.blockStorage.calls).toEqual([`attach ${V}`, 'wait attached']);
  });
});

describe('after an attach', () => {
  it('status attached with the device, then a Normal event on the object (its name and uid) saying where', async () => {
    const w = world();

    await w.pass();

    expect(w.events).toEqual([
      {
        va: { name: VA, uid: `uid-${VA}` },
        event: {
          type: 'Normal',
          reason: 'SuccessfulAttachVolume',
          message: expect.stringMatching(new RegExp(`${V}.*${I}.*/dev/xvdaa`)) as string,
        },
      },
    ]);
  });

  it.each([
    [
      'kcm deletes the object while EC2 attaches',
      (cluster: FakeCluster) => (cluster.snapshot.volumeAttachments[0]!.metadata.deletionTimestamp = TIME),
    ],
    ['the object is gone once EC2 attached', (cluster: FakeCluster) => (cluster.snapshot.volumeAttachments = [])],
  ])('%s: the status is refused and no SuccessfulAttachVolume event follows', async (_, meanwhile) => {
    const w = world();
    const attach = w.blockStorage.attach.bind(w.blockStorage);
    w.blockStorage.attach = (request) => (meanwhile(w.cluster), attach(request));

    await w.pass();

    expect(w.cluster.attacherWrites).toEqual([
      'pv+ pv-data',
      `claim ${VA} ${I}`,
      `status ${VA} {"attached":true,"attachmentMetadata":{"devicePath":"/dev/xvdaa"},"attachError":null}`,
    ]);
    expect(w.events).toEqual([]);
  });
});

describe('an attach EC2 refuses', () => {
  it.each<[string, AttachOutcome, object]>([
    [
      'the attachment limit (ResourceExhausted, errorCode 8)',
      { kind: 'limit-reached', message: 'AttachmentLimitExceeded' },
      { errorCode: 8 },
    ],
    ['a volume EC2 no longer has', { kind: 'volume-gone', message: 'InvalidVolume.NotFound' }, {}],
  ])('%s: attachError with its message, and a FailedAttachVolume warning', async (_, outcome, extra) => {
    const w = world();
    w.blockStorage.attachOutcome = outcome;
    const message = 'message' in outcome ? outcome.message : '';

    await w.pass();

    expect(w.cluster.attacherWrites.slice(2)).toEqual([
      `status ${VA} ${JSON.stringify({ attachError: { time: TIME, message, ...extra } })}`,
      `event ${VA} FailedAttachVolume`,
    ]);
    expect(w.events.map((e) => e.event)).toEqual([{ type: 'Warning', reason: 'FailedAttachVolume', message }]);
  });
});

describe('detaches', () => {
  const deletingVa = () => kcmVa('node-a', { deleting: true, claimed: true });

  it('a detach EC2 refuses: detachError and a FailedDetachVolume warning; our finalizer stays', async () => {
    const w = world([deletingVa()], [record(V, [attachment('node-a')])]);
    w.blockStorage.volumes.set(V, ec2Shows('attached'));
    const outcome: DetachOutcome = { kind: 'failed', code: 'UnauthorizedOperation', message: 'not allowed to detach' };
    w.blockStorage.detachOutcome = outcome;

    await w.pass();

    expect(w.cluster.attacherWrites).toEqual([
      `status ${VA} ${JSON.stringify({ detachError: { time: TIME, message: outcome.message } })}`,
      `event ${VA} FailedDetachVolume`,
    ]);
    expect(w.events).toEqual([
      { va: { name: VA, uid: `uid-${VA}` }, event: { type: 'Warning', reason: 'FailedDetachVolume', message: outcome.message } },
    ]);
  });

  it.each<[string, DetachOutcome, string, string]>([
    ['succeeds', { kind: 'started' }, 'ok', 'detached (stuck-attach)'],
    ['fails', { kind: 'failed', code: 'IncorrectState', message: 'busy' }, 'failed', 'failed: busy'],
  ])(
    'a stuck attach detached for a retry while its object is live %s: the live object is neither released nor given a detach status',
    async (_, outcome, result, detail) => {
      const w = world(
        [kcmVa('node-a', { claimed: true })],
        [record(V, [attachment('node-a', { state: 'attaching', since: T0 - 30 * MIN })])],
      );
      w.blockStorage.volumes.set(V, ec2Shows('attaching', T0 - 30 * MIN));
      w.blockStorage.detachOutcome = outcome;

      const report = await w.pass();

      expect(w.blockStorage.calls[0]).toBe(`detach ${V}`);
      expect(report.results).toContainEqual(expect.objectContaining({ kind: 'detach', outcome: result, detail }));
      expect(w.cluster.attacherWrites.filter((write) => write.startsWith('release') || write.includes('detach'))).toEqual([]);
    },
  );
});

describe('a write to the object fails: the pass goes on and its report names the object', () => {
  it('the status after an attach', async () => {
    const w = world();
    w.port.patchVolumeAttachmentStatus = () => Promise.reject(new Error('conflict'));

    const report = await w.pass();

    expect(report.results).toEqual([expect.objectContaining({ kind: 'attach', outcome: 'ok' })]);
    expect(report.reportErrors).toEqual([expect.stringMatching(new RegExp(`VolumeAttachment ${VA}.*conflict`))]);
  });

  it('the event after an attach', async () => {
    const w = world();
    w.port.recordVolumeAttachmentEvent = () => Promise.reject(new Error('events are forbidden'));

    const report = await w.pass();

    expect(report.reportErrors).toEqual([
      expect.stringMatching(new RegExp(`SuccessfulAttachVolume.*VolumeAttachment ${VA}.*events are forbidden`)),
    ]);
  });
});

describe('the end of a pass: objects it did not act on', () => {
  it('an object the sidecar marked attached that EC2 lost: attached again, its status written once (no correction after)', async () => {
    const va = kcmVa('node-a', { claimed: true, attached: true, devicePath: '/dev/xvdba' });
    const w = world([va]);

    const report = await w.pass();

    expect(report.results).toEqual([expect.objectContaining({ kind: 'attach', outcome: 'ok' })]);
    expect(w.cluster.attacherWrites.filter((write) => write.startsWith('status'))).toEqual([
      `status ${VA} {"attached":true,"attachmentMetadata":{"devicePath":"/dev/xvdaa"},"attachError":null}`,
    ]);
  });

  it('between verifications, an object already reporting our attachment: EC2 is not asked, nothing is written', async () => {
    const va = kcmVa('node-a', { claimed: true, attached: true, devicePath: '/dev/xvdaa' });
    const w = world([va], [record(V, [attachment('node-a')])]);
    w.store.state = { version: 1, lastVerifiedAt: T0 };

    const report = await w.pass();

    expect(report).toMatchObject({ converged: true, verified: false });
    expect(w.blockStorage.describes).toEqual([]);
    expect(w.cluster.attacherWrites).toEqual([]);
  });

  /** A deleting object whose instance cannot be told: its node's CSINode is gone and our annotation is not an instance id. */
  const unresolvable = (status?: KubeVolumeAttachment['status']) => ({
    ...kcmVa('node-a', { claimed: true, deleting: true, annotated: 'hyperpod-i-1' }),
    ...(status === undefined ? {} : { status }),
  });
  const NOT_AN_INSTANCE = 'annotation csi.alpha.kubernetes.io/node-id is "hyperpod-i-1", which is not an EC2 instance id';

  it.each([
    ['no status yet', undefined],
    ['a status from its attach', { attached: true, attachmentMetadata: { devicePath: '/dev/xvdaa' } }],
    ['an older detachError', { attached: true, detachError: { message: 'EC2 said no', time: TIME } }],
  ])('a deleting object whose instance cannot be resolved, with %s: detachError says why, EC2 is not called', async (_, status) => {
    const w = world([unresolvable(status)]);
    w.cluster.csiNodes = [];

    await w.pass();

    expect(w.cluster.attacherWrites).toEqual([`status ${VA} ${JSON.stringify({ detachError: { time: TIME, message: NOT_AN_INSTANCE } })}`]);
    expect(w.blockStorage.calls).toEqual([]);
  });

  it('the same detachError already on the object: not written again', async () => {
    const w = world([unresolvable({ attached: true, detachError: { message: NOT_AN_INSTANCE, time: TIME } })]);
    w.cluster.csiNodes = [];

    await w.pass();

    expect(w.cluster.attacherWrites).toEqual([]);
  });

  it('a deleting object whose detach another pass holds, with a detachError from before: neither rewritten nor let go', async () => {
    const va = {
      ...kcmVa('node-a', { claimed: true, deleting: true }),
      status: { attached: true, detachError: { message: 'busy', time: TIME } },
    };
    const w = world([va], [record(V, [attachment('node-a')], { operations: { volume: { ...op('detach', 'node-a'), id: 'op-other' } } })]);
    w.blockStorage.volumes.set(V, ec2Shows('attached'));

    await w.pass();

    expect(w.blockStorage.calls).toEqual([]);
    expect(w.cluster.attacherWrites).toEqual([]);
  });

  it('a deleting object with nothing behind it whose release fails: no status after it, the report names the object', async () => {
    const w = world([kcmVa('node-a', { claimed: true, deleting: true })]);
    w.port.releaseVolumeAttachment = () => Promise.reject(new Error('the object changed'));

    const report = await w.pass();

    expect(w.cluster.attacherWrites).toEqual([]);
    expect(report.reportErrors).toEqual([expect.stringMatching(new RegExp(`release VolumeAttachment ${VA}.*the object changed`))]);
  });
});

describe('the end of a full pass: PV finalizers nobody needs', () => {
  /** A PV kcm is deleting that still carries our finalizer. */
  const releasedPv = (name: string) => ({
    ...pv(name, { volumeId: vol(9) }),
    metadata: { name, deletionTimestamp: new Date(T0), finalizers: ['external-attacher/ebs-csi-aws-com'] },
  });

  it('a deleting PV no VolumeAttachment names loses our finalizer; one still named keeps it', async () => {
    const w = world([kcmVa('node-a', { pv: 'pv-named', claimed: true, deleting: true })]);
    w.cluster.snapshot.pvs = [pv('pv-data'), releasedPv('pv-old'), releasedPv('pv-named')];

    await w.pass();

    expect(w.cluster.attacherWrites.filter((write) => write.startsWith('pv'))).toEqual(['pv- pv-old']);
  });

  it('a failed removal is named in the report', async () => {
    const w = world([]);
    w.cluster.snapshot.pvs = [releasedPv('pv-old')];
    w.port.removePvFinalizer = () => Promise.reject(new Error('503'));

    const report = await w.pass();

    expect(report.reportErrors).toEqual([expect.stringMatching(/PV finalizer of pv-old.*503/)]);
  });
});

describe('an object whose volume cannot be resolved (external-attacher saves the error on it too)', () => {
  it.each([
    ['a live object naming a PV that does not exist: attachError', kcmVa('node-a', { pv: 'pv-missing' }), 'attachError'],
    [
      'a deleting object of ours naming a PV that does not exist: detachError',
      kcmVa('node-a', { pv: 'pv-missing', claimed: true, deleting: true }),
      'detachError',
    ],
  ])('%s says why; EC2 is not called', async (_, va, field) => {
    const w = world([va]);

    await w.pass();

    const message = `VolumeAttachment ${va.metadata.name} names PV pv-missing, which was not found`;
    expect(w.cluster.attacherWrites).toEqual([`status ${va.metadata.name} ${JSON.stringify({ [field]: { time: TIME, message } })}`]);
    expect(w.blockStorage.calls).toEqual([]);
  });
});
