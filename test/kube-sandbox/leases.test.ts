import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.js';
import { raw } from './support.js';

const PATH = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';
const lease = (name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name, ...metadata },
  spec,
});

let sandbox: KubeSandbox;
beforeAll(async () => (sandbox = await startKubeSandbox()));
afterAll(() => sandbox.stop());

describe('leases (coordination.k8s.io/v1) as pkg/registry/coordination/lease serves them', () => {
  it.each([
    ['six fraction digits', 201, '2025-03-01T12:00:00.123000Z'],
    ['milliseconds (what a plain Date serialises to)', 400, '2025-03-01T12:00:00.123Z'],
    ['no fraction', 400, '2025-03-01T12:00:00Z'],
  ])('renewTime with %s → %i (MicroTime parses as RFC3339Micro)', async (_, status, renewTime) => {
    const name = `micro-${status}-${renewTime.length}`;
    expect((await raw(sandbox, 'POST', PATH, { body: lease(name, { holderIdentity: 'a', renewTime }) })).status).toBe(status);
  });

  it.each([
    ['leaseDurationSeconds', 0],
    ['leaseTransitions', -1],
  ])('%s %i is invalid (422)', async (field, value) => {
    const answer = await raw(sandbox, 'POST', PATH, { body: lease(`invalid-${field.toLowerCase()}`, { [field]: value }) });
    expect(answer.status).toBe(422);
  });

  it('an update names the resourceVersion it replaces: none → 422, a stale one → 409, the current one → 200', async () => {
    const created = await raw(sandbox, 'POST', PATH, { body: lease('optimistic', { holderIdentity: 'a' }) });
    const rv = (created.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    expect((await raw(sandbox, 'PUT', `${PATH}/optimistic`, { body: lease('optimistic', { holderIdentity: 'b' }) })).status).toBe(422);
    const renewed = await raw(sandbox, 'PUT', `${PATH}/optimistic`, {
      body: lease('optimistic', { holderIdentity: 'a', leaseTransitions: 1 }, { resourceVersion: rv }),
    });
    expect(renewed.status).toBe(200);
    const stale = await raw(sandbox, 'PUT', `${PATH}/optimistic`, {
      body: lease('optimistic', { holderIdentity: 'b' }, { resourceVersion: rv }),
    });
    expect(stale.status).toBe(409);
  });

  it('a PUT of a missing Lease creates it (201), and DELETE answers with a Status', async () => {
    expect((await raw(sandbox, 'PUT', `${PATH}/put-created`, { body: lease('put-created', { holderIdentity: 'a' }) })).status).toBe(201);
    const deleted = await raw(sandbox, 'DELETE', `${PATH}/put-created`);
    expect(deleted.body).toMatchObject({ kind: 'Status', status: 'Success' });
  });
});
