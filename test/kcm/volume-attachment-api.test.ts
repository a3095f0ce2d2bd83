/**
 * The VolumeAttachment lifecycle as kube-controller-manager and an external attacher drive it,
 * over the wire, against the apiserver's rules (pkg/registry/storage/volumeattachment strategy,
 * the generic registry's graceful delete with finalizers, RFC 6902 JSON patch as apiserver
 * applies it): kcm creates and deletes, the attacher patches finalizers, annotation and status.
 */
/* eslint-disable @typescript-eslint/no-unsafe-member-access --
   tests read response bodies as loosely typed JSON, the way the wire sends them */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.js';
import { raw } from '../kube-sandbox/support.js';

const FINALIZER = 'external-attacher/ebs-csi-aws-com';
const VAS = '/apis/storage.k8s.io/v1/volumeattachments';
const jsonPatch = 'application/json-patch+json';
const mergePatch = 'application/merge-patch+json';

let sandbox: KubeSandbox;
let serial = 0;

beforeAll(async () => {
  sandbox = await startKubeSandbox();
});
afterAll(() => sandbox.stop());

/** kcm's create: no finalizers, no status. */
async function createVa(): Promise<string> {
  serial += 1;
  const name = `csi-${String(serial).padStart(4, '0')}`;
  const created = await raw(sandbox, 'POST', VAS, {
    body: {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name },
      spec: { attacher: 'ebs.csi.aws.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } },
      status: { attached: true },
    },
  });
  expect(created.status).toBe(201);
  return name;
}

const addFinalizer = (name: string) =>
  raw(sandbox, 'PATCH', `${VAS}/${name}`, {
    contentType: jsonPatch,
    body: [
      { op: 'test', path: '/metadata/finalizers', value: [] },
      { op: 'replace', path: '/metadata/finalizers', value: [FINALIZER] },
    ],
  });

describe('VolumeAttachment writes as kcm and the attacher make them', () => {
  it('drops the status of a create: a new VA is never attached', async () => {
    const name = await createVa();
    expect(sandbox.get('VolumeAttachment', undefined, name).status).toEqual({ attached: false });
  });

  it('changes status only through volumeattachments/status, ignoring spec and metadata there', async () => {
    const name = await createVa();
    const viaMain = await raw(sandbox, 'PATCH', `${VAS}/${name}`, { contentType: mergePatch, body: { status: { attached: true } } });
    expect(viaMain.status).toBe(200);
    expect(viaMain.body.status.attached).toBe(false);
    const viaStatus = await raw(sandbox, 'PATCH', `${VAS}/${name}/status`, {
      contentType: mergePatch,
      body: {
        metadata: { annotations: { 'csi.alpha.kubernetes.io/node-id': 'i-0abc' }, finalizers: [FINALIZER] },
        spec: { nodeName: 'node-2' },
        status: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdaa' } },
      },
    });
    expect(viaStatus.status).toBe(200);
    expect(viaStatus.body).toMatchObject({
      spec: { nodeName: 'node-1' },
      status: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdaa' } },
    });
    expect(viaStatus.body.metadata.annotations).toBeUndefined();
    expect(viaStatus.body.metadata.finalizers).toBeUndefined();
  });

  it('adds the finalizer by JSON patch: append with "-" to an existing list, a failed test is 422', async () => {
    const name = await createVa();
    expect((await addFinalizer(name)).status).toBe(422); // an object without finalizers has no such path to test
    const first = await raw(sandbox, 'PATCH', `${VAS}/${name}`, {
      contentType: jsonPatch,
      body: [{ op: 'add', path: '/metadata/finalizers', value: ['other/keep'] }],
    });
    expect(first.body.metadata.finalizers).toEqual(['other/keep']);
    const appended = await raw(sandbox, 'PATCH', `${VAS}/${name}`, {
      contentType: jsonPatch,
      body: [
        { op: 'test', path: '/metadata/finalizers', value: ['other/keep'] },
        { op: 'add', path: '/metadata/finalizers/-', value: FINALIZER },
      ],
    });
    expect(appended.status).toBe(200);
    expect(appended.body.metadata.finalizers).toEqual(['other/keep', FINALIZER]);
  });

  it('refuses to append to a finalizer list the object does not have (422)', async () => {
    const name = await createVa();
    const response = await raw(sandbox, 'PATCH', `${VAS}/${name}`, {
      contentType: jsonPatch,
      body: [{ op: 'add', path: '/metadata/finalizers/-', value: FINALIZER }],
    });
    expect(response.status).toBe(422);
  });

  it('keeps a deleted VA with its finalizer, marked, until the attacher removes the finalizer', async () => {
    const name = await createVa();
    await raw(sandbox, 'PATCH', `${VAS}/${name}`, { contentType: mergePatch, body: { metadata: { finalizers: [FINALIZER] } } });
    const deleted = await raw(sandbox, 'DELETE', `${VAS}/${name}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.metadata.deletionTimestamp).toEqual(expect.any(String));
    expect((await raw(sandbox, 'DELETE', `${VAS}/${name}`)).body.metadata.finalizers).toEqual([FINALIZER]);
    expect((await raw(sandbox, 'GET', `${VAS}/${name}`)).status).toBe(200);
    const released = await raw(sandbox, 'PATCH', `${VAS}/${name}`, {
      contentType: jsonPatch,
      body: [
        { op: 'test', path: '/metadata/finalizers', value: [FINALIZER] },
        { op: 'replace', path: '/metadata/finalizers', value: [] },
      ],
    });
    expect(released.status).toBe(200);
    expect((await raw(sandbox, 'GET', `${VAS}/${name}`)).status).toBe(404);
  });

  it('deletes a VA without finalizers at once', async () => {
    const name = await createVa();
    expect((await raw(sandbox, 'DELETE', `${VAS}/${name}`)).status).toBe(200);
    expect((await raw(sandbox, 'GET', `${VAS}/${name}`)).status).toBe(404);
  });
});
