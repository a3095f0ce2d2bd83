/**
 * The wire as sent: status codes, Status bodies, TLS, auth, discovery, patch types the
 * client-node helpers do not cover, and the `/_sandbox` API other processes use.
 */
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-assignment --
   tests read stored objects and response bodies as loosely typed JSON, the way the wire sends them */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.js';
import { node, pod, raw, volumeAttachment } from './support.js';

let sandbox: KubeSandbox;

beforeAll(async () => {
  sandbox = await startKubeSandbox();
  sandbox.seed([node('n1'), pod('default', 'web', 'n1')]);
});
afterAll(() => sandbox.stop());

describe('TLS and authentication', () => {
  it('serves a certificate for 127.0.0.1 that chains to the CA in the kubeconfig', async () => {
    const kubeconfig = JSON.parse(await readFile(sandbox.kubeconfigPath, 'utf8')) as {
      clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
    };
    const ca = Buffer.from(kubeconfig.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString();
    expect(kubeconfig.clusters[0]?.cluster.server).toBe(sandbox.url);
    expect((await raw(sandbox, 'GET', '/api/v1/nodes', { ca })).status).toBe(200);
  });

  it('is refused by a client that trusts only the system CAs', async () => {
    const rejected = await fetch(`${sandbox.url}/version`).then(
      () => 'connected',
      (error: Error) => String((error.cause as Error | undefined)?.message ?? error.message),
    );
    expect(rejected).toMatch(/certificate/i);
  });

  it.each([
    ['no token', null],
    ['a wrong token', 'not-the-token'],
  ])('answers 401 with a Status to %s', async (_name, token) => {
    const response = await raw(sandbox, 'GET', '/api/v1/nodes', { token });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 });
  });

  it('lets /version through without a token, as system:public-info-viewer does', async () => {
    expect((await raw(sandbox, 'GET', '/version', { token: null })).body.gitVersion).toMatch(/^v1\./);
  });
});

describe('errors as Status objects', () => {
  it.each([
    ['a missing object', 'GET', '/api/v1/nodes/ghost', undefined, 404, 'NotFound'],
    ['an unknown resource', 'GET', '/api/v1/widgets', undefined, 404, 'NotFound'],
    ['a cluster-scoped type under a namespace', 'GET', '/api/v1/namespaces/default/nodes', undefined, 404, 'NotFound'],
    [
      'a watch with resourceVersionMatch alone',
      'GET',
      '/api/v1/pods?watch=true&resourceVersionMatch=NotOlderThan',
      undefined,
      422,
      'Invalid',
    ],
    ['a watch on a subresource', 'GET', '/api/v1/nodes/n1/status?watch=true', undefined, 405, 'MethodNotAllowed'],
    ['a watch with an invalid resourceVersion', 'GET', '/api/v1/pods?watch=true&resourceVersion=abc', undefined, 400, 'BadRequest'],
    ['an unsupported field selector', 'GET', '/api/v1/pods?fieldSelector=spec.priority%3D1', undefined, 400, 'BadRequest'],
    ['a create in a missing namespace', 'POST', '/api/v1/namespaces/nowhere/pods', pod('nowhere', 'p'), 404, 'NotFound'],
    [
      'a VolumeAttachment without nodeName',
      'POST',
      '/apis/storage.k8s.io/v1/volumeattachments',
      { ...volumeAttachment('csi-bad', ''), spec: { attacher: 'ebs.csi.aws.com', source: { persistentVolumeName: 'p' } } },
      422,
      'Invalid',
    ],
    ['a resourceVersion ahead of the server', 'GET', '/api/v1/nodes?resourceVersion=999999', undefined, 504, 'Timeout'],
  ])('%s', async (_name, method, path, body, code, reason) => {
    const response = await raw(sandbox, method, path, { body });
    expect(response.status).toBe(code);
    expect(response.body).toMatchObject({ kind: 'Status', status: 'Failure', code, reason });
  });

  it('names the resource, group and field in the details', async () => {
    const response = await raw(sandbox, 'POST', '/apis/storage.k8s.io/v1/volumeattachments', {
      body: { ...volumeAttachment('', 'n1'), metadata: {} },
    });
    expect(response.body.details).toMatchObject({ kind: 'VolumeAttachment', causes: [{ field: 'metadata.name' }] });
    const missing = await raw(sandbox, 'GET', '/apis/storage.k8s.io/v1/volumeattachments/csi-x');
    expect(missing.body).toMatchObject({
      message: 'volumeattachments.storage.k8s.io "csi-x" not found',
      details: { name: 'csi-x', group: 'storage.k8s.io', kind: 'volumeattachments' },
    });
  });
});

describe('patch types', () => {
  it('applies a JSON patch and answers 422 when its test operation fails', async () => {
    const path = '/api/v1/nodes/n1/status';
    const ok = await raw(sandbox, 'PATCH', path, {
      contentType: 'application/json-patch+json',
      body: [{ op: 'add', path: '/status/volumesInUse', value: ['v'] }],
    });
    expect(ok.body.status.volumesInUse).toEqual(['v']);
    const failed = await raw(sandbox, 'PATCH', path, {
      contentType: 'application/json-patch+json',
      body: [{ op: 'test', path: '/status/volumesInUse', value: [] }],
    });
    expect(failed.status).toBe(422);
  });

  it('merges finalizers as a set in a strategic merge patch and removes them by directive', async () => {
    sandbox.seed([volumeAttachment('csi-fin', 'n1', ['a/one'])]);
    const path = '/apis/storage.k8s.io/v1/volumeattachments/csi-fin';
    const contentType = 'application/strategic-merge-patch+json';
    const added = await raw(sandbox, 'PATCH', path, { contentType, body: { metadata: { finalizers: ['b/two'] } } });
    expect(added.body.metadata.finalizers).toEqual(['a/one', 'b/two']);
    const removed = await raw(sandbox, 'PATCH', path, {
      contentType,
      body: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a/one'] } },
    });
    expect(removed.body.metadata.finalizers).toEqual(['b/two']);
  });

  it('answers 415 to apply patches', async () => {
    const response = await raw(sandbox, 'PATCH', '/api/v1/nodes/n1', { contentType: 'application/apply-patch+yaml', body: {} });
    expect(response.status).toBe(415);
  });

  it('answers 200 with the object while finalizers hold a delete (202 only for orphanDependents=false), and a Success Status when a node goes', async () => {
    sandbox.seed([volumeAttachment('csi-held', 'n1', ['a/one']), volumeAttachment('csi-held-2', 'n1', ['a/one']), node('n-gone')]);
    const held = await raw(sandbox, 'DELETE', '/apis/storage.k8s.io/v1/volumeattachments/csi-held');
    expect(held.status).toBe(200);
    expect(held.body.metadata.deletionTimestamp).toBeDefined();
    const orphaning = await raw(sandbox, 'DELETE', '/apis/storage.k8s.io/v1/volumeattachments/csi-held-2?orphanDependents=false');
    expect(orphaning.status).toBe(202);
    const gone = await raw(sandbox, 'DELETE', '/api/v1/nodes/n-gone');
    expect(gone.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'n-gone', kind: 'nodes' } });
  });
});

describe('discovery', () => {
  it('lists the core and storage.k8s.io resources with their status subresources', async () => {
    const core = await raw(sandbox, 'GET', '/api/v1');
    expect(core.body.resources.map((r: { name: string }) => r.name)).toEqual(
      expect.arrayContaining(['nodes', 'nodes/status', 'pods', 'persistentvolumeclaims', 'persistentvolumes', 'events']),
    );
    const storage = await raw(sandbox, 'GET', '/apis/storage.k8s.io/v1');
    expect(storage.body.resources.map((r: { name: string }) => r.name)).toEqual(
      expect.arrayContaining(['volumeattachments', 'volumeattachments/status', 'csinodes']),
    );
    expect((await raw(sandbox, 'GET', '/apis')).body.groups[0].name).toBe('storage.k8s.io');
    expect((await raw(sandbox, 'GET', '/api')).body.versions).toEqual(['v1']);
  });

  it('answers the aggregated form when the client asks for it', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
    const response = await raw(sandbox, 'GET', '/apis', { accept });
    expect(response.headers['content-type']).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    const volumeAttachments = response.body.items[0].versions[0].resources.find(
      (r: { resource: string }) => r.resource === 'volumeattachments',
    );
    expect(volumeAttachments).toMatchObject({
      scope: 'Cluster',
      responseKind: { group: 'storage.k8s.io', version: 'v1', kind: 'VolumeAttachment' },
      subresources: [{ subresource: 'status' }],
    });
  });

  it('prints a Table for kubectl', async () => {
    const response = await raw(sandbox, 'GET', '/api/v1/nodes', {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    expect(response.body.kind).toBe('Table');
    const columns = response.body.columnDefinitions.map(
      (c: { name: string; priority: number }) => `${c.name}${c.priority ? ' (wide)' : ''}`,
    );
    expect(columns).toEqual([
      'Name',
      'Status',
      'Roles',
      'Age',
      'Version',
      'Internal-IP (wide)',
      'External-IP (wide)',
      'OS-Image (wide)',
      'Kernel-Version (wide)',
      'Container-Runtime (wide)',
    ]);
    expect(response.body.rows[0].cells.slice(0, 3)).toEqual(['n1', 'Ready', '<none>']);
  });

  it('prints pods with upstream columns: ready containers, status, restarts', async () => {
    const response = await raw(sandbox, 'GET', '/api/v1/namespaces/default/pods/web', {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    const columns = response.body.columnDefinitions.map(
      (c: { name: string; priority: number }) => `${c.name}${c.priority ? ' (wide)' : ''}`,
    );
    expect(columns).toEqual([
      'Name',
      'Ready',
      'Status',
      'Restarts',
      'Age',
      'IP (wide)',
      'Node (wide)',
      'Nominated Node (wide)',
      'Readiness Gates (wide)',
    ]);
    expect(response.body.rows[0].cells.slice(0, 4)).toEqual(['web', '0/1', 'Running', '0']);
    expect(response.body.rows[0].cells[6]).toBe('n1');
  });
});

describe('the /_sandbox API', () => {
  it('seeds, plays the kubelet, reads objects and the request log over HTTP', async () => {
    const seeded = await raw(sandbox, 'POST', '/_sandbox/seed', { body: [node('n-remote')] });
    expect(seeded.status).toBe(200);
    await raw(sandbox, 'POST', '/_sandbox/kubelet/ready', { body: { node: 'n-remote', ready: false } });
    const stored = await raw(sandbox, 'GET', '/_sandbox/objects/Node/n-remote');
    expect(stored.body.status.conditions[0]).toMatchObject({ type: 'Ready', status: 'False' });
    await raw(sandbox, 'POST', '/_sandbox/requests/reset');
    await raw(sandbox, 'GET', '/api/v1/nodes/n-remote');
    expect((await raw(sandbox, 'GET', '/_sandbox/counters')).body).toEqual({ 'get nodes': 1 });
  });

  it('injects faults over HTTP with a path regex', async () => {
    await raw(sandbox, 'POST', '/_sandbox/faults/fail-next', {
      body: { method: 'GET', pathRegex: '^/api/v1/nodes/n1$', count: 1, code: 503 },
    });
    const failed = await raw(sandbox, 'GET', '/api/v1/nodes/n1');
    expect([failed.status, failed.headers['retry-after']]).toEqual([503, '1']);
    expect((await raw(sandbox, 'GET', '/api/v1/nodes/n1')).status).toBe(200);
  });

  it('requires the token and explains unknown routes and bad input', async () => {
    expect((await raw(sandbox, 'GET', '/_sandbox/counters', { token: null })).status).toBe(401);
    expect((await raw(sandbox, 'POST', '/_sandbox/nope')).status).toBe(404);
    expect((await raw(sandbox, 'POST', '/_sandbox/seed', { body: [{ kind: 'Gizmo', metadata: { name: 'g' } }] })).body.error).toMatch(
      /unknown kind "Gizmo"/,
    );
  });
});
