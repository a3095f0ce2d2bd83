/**
 * Attacher mode's pass for an EC2 instance event (attacher/instance-pass.ts) and its follow-through
 * on a dead instance (attacher/dead-instance.ts): after the full pass, the old VolumeAttachments on
 * the dead instance's out-of-service node are read by name until kcm deletes them (each released
 * object is detached at once), then every VolumeAttachment is listed until the replacements on
 * other nodes appear and are attached; it stops when all are attached elsewhere, or when the
 * follow window ends. One report sums up the full pass and every step.
 */
import { describe, expect, it } from 'vitest';
import type { InstanceState } from '../../../lambda/core/types.js';
import type { SeenInstance } from '../../../lambda/ports/block-storage.js';
import { runDeadInstancePass } from '../../../lambda/reconcile/attacher/instance-pass.js';
import type { PassOptions } from '../../../lambda/reconcile/pass/types.js';
import { csiNode, kcmVa } from '../../core/attacher/builders.js';
import { actualOf, attachment, instanceOf, node, pv, record, T0, vol } from '../../core/builders.js';
import { FakeBlockStorage, FakeCluster, FakeStore, fakeDeps } from '../../support/fake-ports.js';

const budget = { deadline: T0 + 60_000 };
const A = instanceOf('node-a');
const OLD = ['csi-pv-data-node-a', 'csi-pv-logs-node-a'];
const NEW = ['csi-pv-data-node-b', 'csi-pv-logs-node-b'];

/** What kcm does while the pass sleeps, one entry per sleep: the cluster's VolumeAttachments as kcm leaves them. */
type KcmStep = (cluster: FakeCluster) => void;

const deleteOld: KcmStep = (c) => {
  for (const va of c.snapshot.volumeAttachments)
    if (OLD.includes(va.metadata.name ?? '')) va.metadata.deletionTimestamp = new Date(T0).toISOString();
};
/** kcm removes the deleting objects no finalizer holds any more (`only` of them when given). */
const removeReleased =
  (only?: string): KcmStep =>
  (c) => {
    c.snapshot.volumeAttachments = c.snapshot.volumeAttachments.filter(
      (va) =>
        !(
          va.metadata.deletionTimestamp &&
          (va.metadata.finalizers ?? []).length === 0 &&
          (only === undefined || va.metadata.name === only)
        ),
    );
  };
const createReplacements: KcmStep = (c) => {
  c.snapshot.volumeAttachments.push(kcmVa('node-b'), kcmVa('node-b', { pv: 'pv-logs' }));
};
const nothing: KcmStep = () => undefined;

/**
 * Instance A (node-a, already out of service) holds volumes 1 and 2 through our VolumeAttachments;
 * EC2 reports it `instanceState`. EC2 keeps track of attaches and detaches. The clock moves with
 * each sleep, after which kcm takes its next step. Reads of VolumeAttachments and sleeps are
 * written down in order in `calls`; a follow without end fails.
 */
function world(kcm: KcmStep[] = [], o: { instanceState?: InstanceState; followMs?: number; outOfService?: boolean } = {}) {
  const cluster = new FakeCluster({
    nodes: [node('node-a', { outOfService: o.outOfService ?? true }), node('node-b')],
    pods: [],
    pvcs: [],
    pvs: [pv('pv-data'), pv('pv-logs', { volumeId: vol(2) })],
    volumeAttachments: [
      kcmVa('node-a', { claimed: true, attached: true, devicePath: '/dev/xvdaa' }),
      kcmVa('node-a', { pv: 'pv-logs', claimed: true, attached: true, devicePath: '/dev/xvdab' }),
    ],
  });
  cluster.csiNodes = [csiNode('node-a'), csiNode('node-b')];
  const calls: string[] = [];
  const note = (call: string) => {
    calls.push(call);
    if (calls.length > 80) throw new Error('followed without end');
  };
  const readVolumeAttachment = cluster.readVolumeAttachment.bind(cluster);
  cluster.readVolumeAttachment = (name) => (note(`read ${name}`), readVolumeAttachment(name));
  const listVolumeAttachments = cluster.listVolumeAttachments.bind(cluster);
  cluster.listVolumeAttachments = () => (note('list'), listVolumeAttachments());

  const store = new FakeStore();
  store.state = { version: 1, lastVerifiedAt: T0 }; // no verification due: EC2 is asked about A because of the event
  for (const r of actualOf(
    record(vol(1), [attachment('node-a', { device: '/dev/xvdaa' })]),
    record(vol(2), [attachment('node-a', { device: '/dev/xvdab' })]),
  ).values())
    store.items.set(r.volumeId, r);

  const blockStorage = new FakeBlockStorage();
  const onA = (n: number, device: string) => ({
    volumeId: vol(n),
    exists: true,
    attachments: [{ instanceId: A, state: 'attached' as const, device }],
  });
  blockStorage.volumes.set(vol(1), onA(1, '/dev/xvdaa'));
  blockStorage.volumes.set(vol(2), onA(2, '/dev/xvdab'));
  const attach = blockStorage.attach.bind(blockStorage);
  blockStorage.attach = async (request) => {
    const outcome = await attach(request);
    if (outcome.kind === 'started')
      blockStorage.volumes.set(request.volumeId, {
        volumeId: request.volumeId,
        exists: true,
        attachments: [{ instanceId: request.instanceId, state: 'attached', device: outcome.device }],
      });
    return outcome;
  };
  const detach = blockStorage.detach.bind(blockStorage);
  blockStorage.detach = async (request) => {
    const outcome = await detach(request);
    blockStorage.volumes.set(request.volumeId, { volumeId: request.volumeId, exists: true, attachments: [] });
    return outcome;
  };
  const state = o.instanceState ?? 'stopped';
  blockStorage.observeInstances = (ids) =>
    Promise.resolve(
      new Map<string, SeenInstance | 'missing'>(ids.map((id) => [id, { state: id === A ? state : 'running', mappings: [] }])),
    );

  let now = T0;
  let slept = 0;
  const deps = fakeDeps({
    cluster,
    store,
    blockStorage,
    clock: () => now,
    sleep: (ms) => {
      note(`sleep ${ms}`);
      now += ms;
      (kcm[slept++] ?? nothing)(cluster);
      return Promise.resolve();
    },
  });
  if (o.followMs !== undefined) deps.settings = { ...deps.settings, outOfServiceFollowMs: o.followMs };
  const pass = (options?: PassOptions) => runDeadInstancePass(deps, A, budget, options);
  return { cluster, store, blockStorage, calls, pass };
}

/** kcm's order once node-a is out of service: delete the old objects, remove each once released, then create the replacements. */
const kcmFollows = [deleteOld, removeReleased(OLD[0]), (c: FakeCluster) => (removeReleased()(c), createReplacements(c))];

describe("following a dead instance's volumes to their new node", () => {
  it('releases each old object as kcm deletes it, then attaches the replacements, and stops once all are attached', async () => {
    const w = world(kcmFollows);

    const report = await w.pass({ passId: 'ec2-event', dryRun: false });

    expect(w.calls).toEqual([
      ...OLD.map((n) => `read ${n}`), // both live: nothing to do yet
      'sleep 200',
      ...OLD.map((n) => `read ${n}`), // both deleting: released, detached
      'sleep 300',
      ...OLD.map((n) => `read ${n}`), // one gone, one waiting for kcm
      'sleep 450',
      ...OLD.map((n) => `read ${n}`), // both gone: from now on the list
      'sleep 675',
      'list', // the replacements: attached
      'sleep 1013',
      'list', // both attached on node-b: done
    ]);
    expect([...w.blockStorage.calls].sort()).toEqual(
      [`detach ${vol(1)}`, `detach ${vol(2)}`, 'wait detached', 'wait detached', `attach ${vol(1)}`, `attach ${vol(2)}`]
        .concat(['wait attached', 'wait attached'])
        .sort(),
    );
    expect(w.blockStorage.calls.indexOf(`attach ${vol(1)}`)).toBeGreaterThan(w.blockStorage.calls.indexOf(`detach ${vol(1)}`));
    expect(w.cluster.snapshot.volumeAttachments.map((va) => [va.metadata.name, va.status?.attached])).toEqual(NEW.map((n) => [n, true]));
    const onNodeB: unknown = expect.objectContaining({ state: 'attached' });
    expect(w.store.items.get(vol(1))?.attachments).toEqual({ 'node-b': onNodeB });
    expect(report).toMatchObject({ passId: 'ec2-event', kind: 'full', durationMs: 200 + 300 + 450 + 675 + 1013, reportErrors: [] });
    expect(report.actions.map((a) => `${a.kind} ${a.volumeId} ${a.nodeName}`)).toEqual([
      `detach ${vol(1)} node-a`,
      `detach ${vol(2)} node-a`,
      `attach ${vol(1)} node-b`,
      `attach ${vol(2)} node-b`,
    ]);
    expect(report.results.map((r) => `${r.kind} ${r.volumeId} ${r.nodeName} ${r.outcome}`)).toEqual([
      `detach ${vol(1)} node-a ok`,
      `detach ${vol(2)} node-a ok`,
      `attach ${vol(1)} node-b ok`,
      `attach ${vol(2)} node-b ok`,
    ]);
    expect(report.converged).toBe(true);
  });

  it('replacements that do not come: polls with growing pauses (at most 2s) until the follow window ends', async () => {
    // The window ends exactly when the seventh pause would: that pause is still taken.
    const w = world([deleteOld, removeReleased()], { followMs: 200 + 300 + 450 + 675 + 1013 + 1519 + 2000 });

    const report = await w.pass();

    expect(w.calls.filter((c) => c.startsWith('sleep'))).toEqual([
      'sleep 200',
      'sleep 300',
      'sleep 450',
      'sleep 675',
      'sleep 1013',
      'sleep 1519',
      'sleep 2000',
    ]);
    expect(w.calls.filter((c) => c === 'list')).toHaveLength(5);
    expect(report.results.map((r) => `${r.kind} ${r.volumeId} ${r.outcome}`)).toEqual([`detach ${vol(1)} ok`, `detach ${vol(2)} ok`]);
    expect(w.blockStorage.calls.filter((c) => c.startsWith('attach'))).toEqual([]);
  });

  it('a replacement whose attach fails is tried again next round; the report converges as the last step left it', async () => {
    const w = world([deleteOld, (c) => (removeReleased()(c), createReplacements(c))]);
    let failures = 1;
    const attach = w.blockStorage.attach.bind(w.blockStorage);
    w.blockStorage.attach = (request) =>
      request.volumeId === vol(1) && failures-- > 0
        ? Promise.resolve({ kind: 'failed' as const, code: 'IncorrectState', message: 'try again' })
        : attach(request);

    const report = await w.pass();

    expect(w.calls.filter((c) => c === 'list')).toHaveLength(3);
    expect(report.results.map((r) => `${r.kind} ${r.volumeId} ${r.nodeName} ${r.outcome}`)).toEqual([
      `detach ${vol(1)} node-a ok`,
      `detach ${vol(2)} node-a ok`,
      `attach ${vol(1)} node-b failed`,
      `attach ${vol(2)} node-b ok`,
      `attach ${vol(1)} node-b ok`,
    ]);
    expect(report).toMatchObject({ converged: true, notAttached: [], heldBack: [], deferred: [] });
  });

  it('a replacement whose attach fails but that another pass attached meanwhile: done, and the report says our attach failed', async () => {
    const w = world([deleteOld, (c) => (removeReleased()(c), createReplacements(c))]);
    const attach = w.blockStorage.attach.bind(w.blockStorage);
    w.blockStorage.attach = async (request) => {
      if (request.volumeId !== vol(1)) return attach(request);
      // The minute's full pass, running beside this one, got there first.
      await attach(request);
      const replacement = w.cluster.snapshot.volumeAttachments.find((va) => va.metadata.name === NEW[0]);
      if (replacement) replacement.status = { attached: true, attachmentMetadata: { devicePath: '/dev/xvdaa' } };
      return { kind: 'failed' as const, code: 'IncorrectState', message: 'vol-1 is attaching' };
    };

    const report = await w.pass();

    expect(w.calls.filter((c) => c === 'list')).toHaveLength(2);
    expect(report.results.map((r) => `${r.kind} ${r.volumeId} ${r.nodeName} ${r.outcome}`)).toEqual([
      `detach ${vol(1)} node-a ok`,
      `detach ${vol(2)} node-a ok`,
      `attach ${vol(1)} node-b failed`,
      `attach ${vol(2)} node-b ok`,
    ]);
    expect(report.converged).toBe(false);
  });

  it("a report write that fails during the follow-through is among the report's errors", async () => {
    const w = world(kcmFollows);
    w.cluster.recordVolumeAttachmentEvent = () => Promise.reject(new Error('events is forbidden'));

    const report = await w.pass();

    expect(report.reportErrors).toHaveLength(2);
    expect(report.reportErrors.every((e) => e.includes('events is forbidden'))).toBe(true);
  });
});

describe('when nothing is followed', () => {
  it.each([
    ['the instance runs (its node out of service by someone else)', {}, { instanceState: 'running' as const }],
    ['the instance stopped but its node is not out of service', {}, { outOfService: false }],
    ['a dry run', { dryRun: true }, {}],
  ])('%s: the full pass alone, no follow-through', async (_case, options, o) => {
    const w = world(kcmFollows, o);

    const report = await w.pass(options);

    expect(w.calls).toEqual([]);
    expect(w.blockStorage.calls).toEqual([]);
    expect(report).toMatchObject({ kind: 'full', durationMs: 0, actions: [], results: [] });
  });

  it('an unreadable cluster: nothing is followed', async () => {
    const w = world(kcmFollows);
    w.cluster.readAttacherView = () => Promise.reject(new Error('403 Forbidden'));

    const report = await w.pass();

    expect(report.clusterComplete).toBe(false);
    expect(w.calls).toEqual([]);
    expect(w.blockStorage.calls).toEqual([]);
  });
});
