import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ATTACHER_FINALIZER } from '../../lambda/core/attacher/names.js';
import { volumeAttachmentName } from '../../lambda/adapters/kubernetes/volume-attachment-name.js';
import { startHarness, stored as storedIn, volumeAttachment, type Harness, type Stored } from './support.js';

let h: Harness;
const now = new Date('2025-06-01T12:00:00Z');
beforeAll(async () => {
  h = await startHarness({ clock: { now: () => now.getTime() } });
});
afterAll(() => h.stop());
beforeEach(() => {
  h.sandbox.faults.clear();
  h.sandbox.resetRequests();
});

const ref = (volumeId: string, nodeName = 'node-1') => ({ volumeId, nodeName, pvName: `pv-${volumeId}` });
const inlineRef = (volumeId: string, nodeName = 'node-1') => ({ volumeId, nodeName });
const stored = (r: { volumeId: string; nodeName: string }) =>
  storedIn(h.sandbox, 'VolumeAttachment', undefined, volumeAttachmentName(r.volumeId, r.nodeName));
const mustExist = (r: { volumeId: string; nodeName: string }): Stored => {
  const va = stored(r);
  if (va === undefined) throw new Error(`no VolumeAttachment for ${r.volumeId} on ${r.nodeName}`);
  return va;
};
const calls = () => h.sandbox.requests().map((r) => `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ''} ${r.status}`);

describe('VolumeAttachment lifecycle', () => {
  it('attach: creates csi-<sha256> for the PV with our finalizer and attached status with the device path', async () => {
    const r = ref('vol-0000000000000000a');
    await h.cluster.upsertVolumeAttachment(r, { attached: true, devicePath: '/dev/xvdaa' });
    const va = mustExist(r);
    expect(va.metadata.finalizers).toEqual([ATTACHER_FINALIZER]);
    expect(ATTACHER_FINALIZER).toBe('external-attacher/ebs-csi-aws-com');
    expect(va.spec).toEqual({
      attacher: 'ebs.csi.aws.com',
      nodeName: 'node-1',
      source: { persistentVolumeName: 'pv-vol-0000000000000000a' },
    });
    expect(va.status).toEqual({ attached: true, attachmentMetadata: { devicePath: '/dev/xvdaa' } });
    expect(calls()).toEqual(['create volumeattachments 201', 'patch volumeattachments/status 200']);
  });

  it('an inline volume carries its CSI spec instead of a PV name', async () => {
    const r = inlineRef('vol-0000000000000000b');
    await h.cluster.upsertVolumeAttachment(r, { attached: true, devicePath: '/dev/xvdab' });
    expect(mustExist(r).spec?.source).toEqual({
      inlineVolumeSpec: { csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-0000000000000000b' }, accessModes: ['ReadWriteOnce'] },
    });
  });

  it('repeating the same status writes nothing', async () => {
    const r = ref('vol-0000000000000000a');
    await h.cluster.upsertVolumeAttachment(r, { attached: true, devicePath: '/dev/xvdaa' });
    expect(calls()).toEqual(['create volumeattachments 409', 'get volumeattachments 200']);
  });

  it('attach failure: attached false, attachError with time and message, device path cleared', async () => {
    const r = ref('vol-0000000000000000c');
    await h.cluster.upsertVolumeAttachment(r, { attached: true, devicePath: '/dev/xvdac' });
    await h.cluster.upsertVolumeAttachment(r, { attached: false, attachError: 'AttachmentLimitExceeded' });
    expect(mustExist(r).status).toEqual({
      attached: false,
      attachError: { time: '2025-06-01T12:00:00Z', message: 'AttachmentLimitExceeded' },
    });
  });

  it('detach failure: still attached, with detachError', async () => {
    const r = ref('vol-0000000000000000d');
    await h.cluster.upsertVolumeAttachment(r, { attached: true, devicePath: '/dev/xvdad' });
    await h.cluster.upsertVolumeAttachment(r, { attached: true, devicePath: '/dev/xvdad', detachError: 'IncorrectState' });
    expect(mustExist(r).status).toMatchObject({
      attached: true,
      attachmentMetadata: { devicePath: '/dev/xvdad' },
      detachError: { message: 'IncorrectState' },
    });
  });

  it('adopts a VolumeAttachment someone else created: adds our finalizer, keeps theirs', async () => {
    const r = ref('vol-0000000000000000e');
    h.sandbox.seed([volumeAttachment(volumeAttachmentName(r.volumeId, r.nodeName), r.nodeName, r.pvName, ['example.com/keep'])]);
    await h.cluster.upsertVolumeAttachment(r, { attached: true, devicePath: '/dev/xvdae' });
    expect(mustExist(r).metadata.finalizers).toEqual(['example.com/keep', ATTACHER_FINALIZER]);
    expect(mustExist(r).status?.attached).toBe(true);
  });

  it('detach: clears the status, removes our finalizer, then deletes', async () => {
    const r = ref('vol-0000000000000000a');
    h.sandbox.resetRequests();
    await h.cluster.deleteVolumeAttachment(r);
    expect(stored(r)).toBeUndefined();
    expect(calls()).toEqual([
      'get volumeattachments 200',
      'patch volumeattachments/status 200',
      'patch volumeattachments 200',
      'delete volumeattachments 200',
    ]);
  });

  it('detach of a VolumeAttachment with another finalizer leaves it terminating, without ours or its status', async () => {
    const r = ref('vol-0000000000000000e');
    await h.cluster.deleteVolumeAttachment(r);
    const va = mustExist(r);
    expect(va.metadata.finalizers).toEqual(['example.com/keep']);
    expect(va.metadata.deletionTimestamp).toBeDefined();
    expect(va.status?.attached ?? false).toBe(false);
    expect(va.status?.attachmentMetadata).toBeUndefined();
  });

  it('detach of a VolumeAttachment that is already gone is not an error', async () => {
    await expect(h.cluster.deleteVolumeAttachment(ref('vol-0000000000000000f'))).resolves.toBeUndefined();
    expect(calls()).toEqual(['get volumeattachments 404']);
  });

  it('re-applies the finalizer removal after a conflict', async () => {
    const r = ref('vol-0000000000000000c');
    h.sandbox.faults.failNext(
      { method: 'PATCH', path: `/apis/storage.k8s.io/v1/volumeattachments/${volumeAttachmentName(r.volumeId, r.nodeName)}` },
      1,
      409,
    );
    await h.cluster.deleteVolumeAttachment(r);
    expect(stored(r)).toBeUndefined();
  });
});
