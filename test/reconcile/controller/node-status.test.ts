/**
 * The node-status updater is the pass's one writer of `status.volumesAttached`: the unreport before a
 * detach and the report at the end of the pass go through it, each computed from the list the
 * previous write left, and the records remember what their node reports.
 */
import { describe, expect, it } from 'vitest';
import { buildDesiredState } from '../../../lambda/core/desired-state.js';
import type { VolumeRecord } from '../../../lambda/core/types.js';
import { controllerMode } from '../../../lambda/reconcile/controller/reports.js';
import { NodeStatusUpdater } from '../../../lambda/reconcile/controller/node-status.js';
import { createPassContext } from '../../../lambda/reconcile/pass/context.js';
import { attachment, node, record, snapshot, T0, uname, vol } from '../../core/builders.js';
import { FakeCluster, FakeStore, fakeDeps } from '../../support/fake-ports.js';

const V = vol(1);
const W = vol(2);
const entry = (volumeId: string, devicePath = '/dev/xvdaa') => ({ name: uname(volumeId), devicePath });

function pass(records: VolumeRecord[], attached = [entry(V), entry(W, '/dev/xvdab')]) {
  const kube = new FakeCluster(snapshot({ nodes: [node('node-a', { attached })] }));
  const store = new FakeStore();
  for (const r of records) store.items.set(r.volumeId, structuredClone(r));
  const deps = fakeDeps({ cluster: kube, store });
  const actual = new Map(records.map((r) => [r.volumeId, structuredClone(r)]));
  const ctx = createPassContext(
    deps,
    { deadline: T0 + 60_000 },
    { desired: buildDesiredState(kube.snapshot), actual },
    controllerMode(deps, { pvs: [] }),
  );
  const nodeStatus = new NodeStatusUpdater(ctx, kube, ctx.deadline.leaseMs(deps.settings.plan));
  return { ctx, nodeStatus, kube, store };
}

describe('the node-status updater', () => {
  it('unreports in one write from the list as read, marks the pair and the record, and reports on from there', async () => {
    const { nodeStatus, kube, store } = pass([
      record(V, [attachment('node-a')]),
      record(W, [attachment('node-a', { device: '/dev/xvdab' })]),
    ]);

    expect(await nodeStatus.unreport('node-a', [{ volumeId: V, uniqueName: uname(V) }])).toEqual({ ok: true, answer: 'updated' });
    expect(nodeStatus.wasUnreported(V, 'node-a')).toBe(true);
    expect(nodeStatus.wasUnreported(W, 'node-a')).toBe(false);
    expect(store.items.get(V)?.attachments['node-a']?.reported).toBe(false);

    // V is still attached in the records: the end of the pass lists it again, starting from the unreported list.
    await nodeStatus.reportAll();
    expect(kube.statusWrites.map((w) => w.volumes)).toEqual([[entry(W, '/dev/xvdab')], [entry(V), entry(W, '/dev/xvdab')]]);
    expect(kube.statusBases).toEqual([[entry(V), entry(W, '/dev/xvdab')], [entry(W, '/dev/xvdab')]]);
    expect(store.items.get(V)?.attachments['node-a']?.reported).toBe(true);
  });

  it('a node gone when its list is written: nothing is remembered as reported on it', async () => {
    const { nodeStatus, kube, store } = pass([
      record(V, [attachment('node-a')]),
      record(W, [attachment('node-a', { device: '/dev/xvdab' })]),
    ]);
    await nodeStatus.unreport('node-a', [{ volumeId: V, uniqueName: uname(V) }]);
    kube.setVolumesAttached = () => Promise.resolve('node-gone');

    await nodeStatus.reportAll();

    expect(store.items.get(V)?.attachments['node-a']?.reported).toBe(false);
  });

  it('a failed write marks nothing, so no detach may follow', async () => {
    const { nodeStatus, kube, store } = pass([record(V, [attachment('node-a')])]);
    kube.failStatusWrites = true;

    const unreported = await nodeStatus.unreport('node-a', [{ volumeId: V, uniqueName: uname(V) }]);

    expect(unreported.ok).toBe(false);
    expect(nodeStatus.wasUnreported(V, 'node-a')).toBe(false);
    expect(store.items.get(V)?.attachments['node-a']?.reported).toBe(true);
  });

  // Another pass may have started detaching a volume since this pass read its record: its node must not list it again.
  it.each([
    [
      'another pass began detaching it',
      (r: VolumeRecord) => ({ ...r, attachments: { 'node-a': { ...r.attachments['node-a']!, state: 'detaching' as const } } }),
    ],
    ['another pass detached it and the record is gone', undefined],
  ])('the end-of-pass report adds a volume only as the store has it now: %s', async (_case, since) => {
    const { nodeStatus, kube, store } = pass([
      record(V, [attachment('node-a', { reported: false })]),
      record(W, [attachment('node-a', { device: '/dev/xvdab' })]),
    ]);
    await nodeStatus.unreport('node-a', [{ volumeId: V, uniqueName: uname(V) }]);
    const now = since?.(store.items.get(V)!);
    if (now) store.items.set(V, { ...now, version: now.version + 1 });
    else store.items.delete(V);

    await nodeStatus.reportAll();

    expect(kube.statusWrites.map((w) => w.volumes)).toEqual([[entry(W, '/dev/xvdab')]]);
  });

  it('when the listing claim cannot be written, the report leaves the volume off and says why', async () => {
    const { ctx, nodeStatus, kube, store } = pass([
      record(V, [attachment('node-a', { reported: false })]),
      record(W, [attachment('node-a', { device: '/dev/xvdab' })]),
    ]);
    await nodeStatus.unreport('node-a', [{ volumeId: V, uniqueName: uname(V) }]);
    store.put = () => Promise.reject(new Error('throttled'));

    await nodeStatus.reportAll();

    expect(kube.statusWrites.map((w) => w.volumes)).toEqual([[entry(W, '/dev/xvdab')]]);
    expect(ctx.reportErrors).toEqual([expect.stringContaining(`listing ${V} on node-a: throttled`)]);
  });

  it('a volume the node already lists is remembered as reported, though the list needs no write', async () => {
    // An earlier pass listed it, then failed to write that down: a later detach must still unreport it first.
    const { nodeStatus, kube, store } = pass([
      record(V, [attachment('node-a', { reported: false })]),
      record(W, [attachment('node-a', { device: '/dev/xvdab' })]),
    ]);

    await nodeStatus.reportAll();

    expect(kube.statusWrites).toEqual([]);
    expect(store.items.get(V)?.attachments['node-a']?.reported).toBe(true);
  });

  it("a volume listed again under this pass's claim keeps no claim once its node reports it", async () => {
    // The record says reported, but the node's list lost it (someone rewrote the list): the pass lists it again under a claim.
    const records = [record(V, [attachment('node-a')]), record(W, [attachment('node-a', { device: '/dev/xvdab' })])];
    const { nodeStatus, kube, store } = pass(records, [entry(W, '/dev/xvdab')]);

    await nodeStatus.reportAll();

    expect(kube.statusWrites.map((w) => w.volumes)).toEqual([[entry(V), entry(W, '/dev/xvdab')]]);
    expect(store.items.get(V)?.attachments['node-a']).toMatchObject({ reported: true });
    expect(store.items.get(V)?.attachments['node-a']?.listingClaims).toBeUndefined();
  });

  it('the end-of-pass report writes only changed lists; a failure is written down, not thrown', async () => {
    const { ctx, nodeStatus, kube } = pass([record(V, [attachment('node-a')])]);
    kube.failStatusWrites = true;

    await nodeStatus.reportAll();

    expect(ctx.reportErrors).toEqual([expect.stringContaining('node status of node-a: nodes/status is forbidden')]);
  });
});
