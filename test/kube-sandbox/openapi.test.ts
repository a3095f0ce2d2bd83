/**
 * OpenAPI discovery as kubectl uses it for `create`/`apply` with validation on: it downloads
 * /openapi/v2 (protobuf), then asks /openapi/v3 whether each kind's PATCH operation takes the
 * `fieldValidation` query parameter (k8s.io/cli-runtime QueryParamVerifierV3) and, if so, sends
 * fieldValidation=Strict and leaves validation to the server.
 */
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-explicit-any --
   tests read the documents as loosely typed JSON, the way the wire sends them */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.js';
import { pod, raw } from './support.js';

let sandbox: KubeSandbox;

beforeAll(async () => {
  sandbox = await startKubeSandbox();
  sandbox.seed([{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n-strict' }, spec: {}, status: {} }]);
});
afterAll(() => sandbox.stop());

async function groupVersionDocument(gv: string) {
  const index = await raw(sandbox, 'GET', '/openapi/v3');
  expect(index.status).toBe(200);
  const url = index.body.paths[gv]?.serverRelativeURL as string;
  expect(url).toMatch(new RegExp(`^/openapi/v3/${gv}\\?hash=[0-9A-F]{128}$`));
  return (await raw(sandbox, 'GET', url)).body;
}

/** kubectl's check: a PATCH operation for the kind that lists the query parameter. */
function supportsFieldValidation(document: any, group: string, version: string, kind: string): boolean {
  return Object.values(document.paths).some((path: any) => {
    const gvk = path.patch?.['x-kubernetes-group-version-kind'];
    return (
      gvk?.group === group &&
      gvk.version === version &&
      gvk.kind === kind &&
      path.patch.parameters.some((p: any) => p.name === 'fieldValidation' && p.in === 'query')
    );
  });
}

function danglingRefs(document: any): string[] {
  const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1] as string);
  return refs.filter((name) => !document.components.schemas[name]);
}

describe('/openapi/v3', () => {
  it.each([
    ['api/v1', '', ['Node', 'Pod', 'PersistentVolume', 'PersistentVolumeClaim', 'Event', 'Namespace']],
    ['apis/storage.k8s.io/v1', 'storage.k8s.io', ['VolumeAttachment', 'CSINode', 'CSIDriver', 'StorageClass']],
  ])('%s says every kind served takes fieldValidation on PATCH, with no dangling schema', async (gv, group, kinds) => {
    const document = await groupVersionDocument(gv);
    expect(document.openapi).toBe('3.0.0');
    for (const kind of kinds) expect([kind, supportsFieldValidation(document, group, 'v1', kind)]).toEqual([kind, true]);
    expect(danglingRefs(document)).toEqual([]);
  });

  it('has the upstream fields and types of the kinds, from the client models', async () => {
    const schemas = (await groupVersionDocument('api/v1')).components.schemas;
    const node = schemas['io.k8s.api.core.v1.Node'];
    expect(node['x-kubernetes-group-version-kind']).toEqual([{ group: '', version: 'v1', kind: 'Node' }]);
    const spec = schemas[node.properties.spec.$ref.split('/').at(-1)];
    expect(spec.properties.providerID).toEqual({ type: 'string' });
    const status = schemas[node.properties.status.$ref.split('/').at(-1)];
    expect(status.properties.volumesInUse).toEqual({ type: 'array', items: { type: 'string' } });
    const meta = schemas[node.properties.metadata.$ref.split('/').at(-1)];
    expect(meta.properties.creationTimestamp).toEqual({ type: 'string', format: 'date-time' });
    expect(meta.properties.labels).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
    const storage = (await groupVersionDocument('apis/storage.k8s.io/v1')).components.schemas;
    const vaSpec = storage[storage['io.k8s.api.storage.v1.VolumeAttachment'].properties.spec.$ref.split('/').at(-1)];
    expect(Object.keys(vaSpec.properties).sort()).toEqual(['attacher', 'nodeName', 'source']);
  });

  it('answers 404 for a group-version not served', async () => {
    expect((await raw(sandbox, 'GET', '/openapi/v3/apis/apps/v1')).status).toBe(404);
  });
});

describe('/openapi/v2', () => {
  it('serves the protobuf document kubectl downloads first (swagger "2.0", no definitions)', async () => {
    const response = await raw(sandbox, 'GET', '/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect(response.body).toBe('\n\u00032.0');
  });
});

describe('fieldValidation on writes', () => {
  const base = pod('default', 'checked');
  it.each([
    ['an unknown spec field', { ...base, spec: { ...base.spec, bogus: 1 } }, 'unknown field "spec.bogus"'],
    [
      'an unknown field in a list item',
      { ...base, spec: { containers: [{ name: 'a', image: 'b', imagePullPolicy: 'Always', colour: 'red' }] } },
      'unknown field "spec.containers[0].colour"',
    ],
    ['an unknown top-level field', { ...base, extra: true }, 'unknown field "extra"'],
  ])('answers 400 to %s with Strict', async (_name, body, field) => {
    const response = await raw(sandbox, 'POST', '/api/v1/namespaces/default/pods?fieldValidation=Strict', { body });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe(`strict decoding error: ${field}`);
  });

  it('accepts any label or annotation key, and unknown fields when not asked to be strict', async () => {
    const labelled = {
      ...base,
      metadata: { ...base.metadata, name: 'lenient', labels: { 'any.key/x': 'y' } },
      spec: { ...base.spec, bogus: 1 },
    };
    expect((await raw(sandbox, 'POST', '/api/v1/namespaces/default/pods', { body: labelled })).status).toBe(201);
  });

  it('checks the patched object of a Strict patch', async () => {
    const response = await raw(sandbox, 'PATCH', '/api/v1/nodes/n-strict?fieldValidation=Strict', {
      body: { spec: { unschedulabel: true } },
      contentType: 'application/merge-patch+json',
    });
    expect([response.status, response.body.message]).toEqual([400, 'strict decoding error: unknown field "spec.unschedulabel"']);
  });

  it('accepts fieldValidation=Strict, as kubectl sends it once v3 says the server validates', async () => {
    const created = await raw(sandbox, 'POST', '/api/v1/namespaces/default/pods?fieldValidation=Strict&fieldManager=kubectl-create', {
      body: pod('default', 'strict'),
    });
    expect(created.status).toBe(201);
  });
});
