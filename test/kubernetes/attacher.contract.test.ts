/**
 * The attacher-mode calls against the local API server: finalizers by guarded JSON patch, the
 * VolumeAttachment's finalizer and node-id annotation in one patch, the status subresource, and
 * kcm's delete held by our finalizer until we let go.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ATTACHER_FINALIZER, NODE_ID_ANNOTATION } from '../../lambda/core/attacher/names.js';
import { attachedStatus, limitReachedStatus } from '../../lambda/core/attacher/status.js';
import { startHarness, pv, stored, volumeAttachment, type Harness } from './support.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());
beforeEach(() => h.sandbox.resetRequests());

const I = 'i-0123456789abcdef0';
const patches = () =>
  h.sandbox
    .requests()
    .filter((r) => r.verb === 'patch')
    .map((r) => `${r.resource}${r.subresource ? `/${r.subresource}` : ''} ${r.status}`);

describe('attacher-mode writes', () => {
  it('adds our finalizer to a PV once, beside the ones already there', async () => {
    h.sandbox.seed([{ ...pv('pv-a', 'vol-0000000000000000a'), metadata: { name: 'pv-a', finalizers: ['kubernetes.io/pv-protection'] } }]);
    expect(await h.cluster.addPvFinalizer('pv-a')).toBe('added');
    expect(await h.cluster.addPvFinalizer('pv-a')).toBe('present');
    expect(stored(h.sandbox, 'PersistentVolume', undefined, 'pv-a')!.metadata.finalizers).toEqual([
      'kubernetes.io/pv-protection',
      ATTACHER_FINALIZER,
    ]);
    expect(await h.cluster.addPvFinalizer('pv-gone')).toBe('gone');
  });

  it('a concurrent writer between our read and our patch: the test op fails (422) and we read again', async () => {
    h.sandbox.seed([pv('pv-b', 'vol-0000000000000000b')]);
    h.sandbox.faults.failNext({ method: 'PATCH', path: '/api/v1/persistentvolumes/pv-b' }, 1, 422, 'Invalid');
    expect(await h.cluster.addPvFinalizer('pv-b')).toBe('added');
    expect(patches()).toEqual(['persistentvolumes 422', 'persistentvolumes 200']);
  });

  describe("from the pass's own read (the event path saves the GET before each patch)", () => {
    const calls = () => h.sandbox.requests().map((r) => `${r.verb} ${r.resource} ${r.status}`);
    const readPv = async (name: string) => (await h.cluster.readPv(name))!.metadata;

    it('an object unchanged since the read: one patch, guarded by its resourceVersion, no GET', async () => {
      h.sandbox.seed([{ ...pv('pv-c', 'vol-0000000000000000c'), metadata: { name: 'pv-c', finalizers: ['kubernetes.io/pv-protection'] } }]);
      const read = await readPv('pv-c');
      h.sandbox.resetRequests();
      expect(await h.cluster.addPvFinalizer('pv-c', read)).toBe('added');
      expect(calls()).toEqual(['patch persistentvolumes 200']);
      expect(stored(h.sandbox, 'PersistentVolume', undefined, 'pv-c')!.metadata.finalizers).toEqual([
        'kubernetes.io/pv-protection',
        ATTACHER_FINALIZER,
      ]);
    });

    it('an object changed since the read (here: marked for deletion, its finalizers as they were): 422, then a fresh read decides', async () => {
      h.sandbox.seed([{ ...pv('pv-d', 'vol-0000000000000000d'), metadata: { name: 'pv-d', finalizers: ['kubernetes.io/pv-protection'] } }]);
      const read = await readPv('pv-d');
      h.sandbox.components.delete('PersistentVolume', undefined, 'pv-d');
      h.sandbox.resetRequests();
      expect(await h.cluster.addPvFinalizer('pv-d', read)).toBe('deleting');
      expect(calls()).toEqual(['patch persistentvolumes 422', 'get persistentvolumes 200']);
      expect(stored(h.sandbox, 'PersistentVolume', undefined, 'pv-d')!.metadata.finalizers).toEqual(['kubernetes.io/pv-protection']);
    });

    it('a read that asks for no patch is confirmed by a fresh one', async () => {
      h.sandbox.seed([{ ...pv('pv-e', 'vol-0000000000000000e'), metadata: { name: 'pv-e', finalizers: [ATTACHER_FINALIZER] } }]);
      const read = await readPv('pv-e');
      h.sandbox.resetRequests();
      expect(await h.cluster.addPvFinalizer('pv-e', read)).toBe('present');
      expect(calls()).toEqual(['get persistentvolumes 200']);
    });

    it('claims a VolumeAttachment read by the poll in one patch', async () => {
      h.sandbox.seed([volumeAttachment('csi-read', 'node-1', 'pv-a')]);
      const read = (await h.cluster.readVolumeAttachment('csi-read'))!.metadata;
      h.sandbox.resetRequests();
      expect(await h.cluster.claimVolumeAttachment('csi-read', I, read)).toBe('claimed');
      expect(calls()).toEqual(['patch volumeattachments 200']);
      expect(stored(h.sandbox, 'VolumeAttachment', undefined, 'csi-read')!.metadata.finalizers).toEqual([ATTACHER_FINALIZER]);
    });
  });

  it('claims a VolumeAttachment in one patch: our finalizer and the node-id annotation', async () => {
    h.sandbox.seed([volumeAttachment('csi-claim', 'node-1', 'pv-a')]);
    expect(await h.cluster.claimVolumeAttachment('csi-claim', I)).toBe('claimed');
    const va = stored(h.sandbox, 'VolumeAttachment', undefined, 'csi-claim')!;
    expect(va.metadata.finalizers).toEqual([ATTACHER_FINALIZER]);
    expect((va.metadata as { annotations?: Record<string, string> }).annotations).toEqual({ [NODE_ID_ANNOTATION]: I });
    expect(patches()).toEqual(['volumeattachments 200']);
    expect(await h.cluster.claimVolumeAttachment('csi-missing', I)).toBe('gone');
  });

  it('kcm deletes: our finalizer holds the object with a deletionTimestamp; released, it goes; a status write then finds nothing', async () => {
    h.sandbox.seed([volumeAttachment('csi-del', 'node-1', 'pv-a')]);
    await h.cluster.claimVolumeAttachment('csi-del', I);
    await h.clients.storage.deleteVolumeAttachment({ name: 'csi-del' });
    expect(stored(h.sandbox, 'VolumeAttachment', undefined, 'csi-del')!.metadata.deletionTimestamp).toBeTruthy();
    expect(await h.cluster.claimVolumeAttachment('csi-del', I)).toBe('deleting');

    await h.cluster.releaseVolumeAttachment('csi-del');

    expect(stored(h.sandbox, 'VolumeAttachment', undefined, 'csi-del')).toBeUndefined();
    expect(await h.cluster.patchVolumeAttachmentStatus('csi-del', attachedStatus('/dev/xvdaa'))).toBe('gone');
  });

  it('attached: true lands only on an object not being deleted: kcm deleting between our read and our patch makes it a 409, then `deleting`', async () => {
    h.sandbox.seed([volumeAttachment('csi-race', 'node-1', 'pv-a')]);
    await h.cluster.claimVolumeAttachment('csi-race', I);
    h.sandbox.resetRequests();
    const stop = h.sandbox.onRequest({
      before: (info) => {
        if (info.subresource !== 'status' || info.name !== 'csi-race') return;
        stop();
        h.sandbox.components.delete('VolumeAttachment', undefined, 'csi-race');
      },
    });

    expect(await h.cluster.patchVolumeAttachmentStatus('csi-race', attachedStatus('/dev/xvdac'))).toBe('deleting');

    expect(stored(h.sandbox, 'VolumeAttachment', undefined, 'csi-race')!.status?.attached).not.toBe(true);
    expect(patches()).toEqual(['volumeattachments/status 409']);
  });

  it('status through the subresource: attached with the devicePath, then an error with its code beside it', async () => {
    h.sandbox.seed([volumeAttachment('csi-status', 'node-1', 'pv-a')]);
    await h.cluster.patchVolumeAttachmentStatus('csi-status', attachedStatus('/dev/xvdab'));
    await h.cluster.patchVolumeAttachmentStatus('csi-status', limitReachedStatus('limit', Date.UTC(2026, 0, 1)));
    expect(stored(h.sandbox, 'VolumeAttachment', undefined, 'csi-status')!.status).toEqual({
      attached: true,
      attachmentMetadata: { devicePath: '/dev/xvdab' },
      attachError: { time: '2026-01-01T00:00:00Z', message: 'limit', errorCode: 8 },
    });
    expect(patches()).toEqual(['volumeattachments/status 200', 'volumeattachments/status 200']);
  });

  it('reads what attacher mode needs: VolumeAttachments, PVs, CSINodes and nodes, every page', async () => {
    h.sandbox.seed([
      {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'CSINode',
        metadata: { name: 'node-1' },
        spec: { drivers: [{ name: 'ebs.csi.aws.com', nodeID: I, topologyKeys: [] }] },
      },
    ]);
    const view = await h.cluster.readAttacherView();
    expect(view.csiNodes).toEqual([
      { metadata: expect.objectContaining({ name: 'node-1' }) as object, spec: { drivers: [{ name: 'ebs.csi.aws.com', nodeID: I }] } },
    ]);
    expect(await h.cluster.readCsiNode('node-1')).toMatchObject({ spec: { drivers: [{ nodeID: I }] } });
    expect(await h.cluster.readCsiNode('node-9')).toBeUndefined();
    expect(view.volumeAttachments.length).toBeGreaterThan(0);
  });
});
