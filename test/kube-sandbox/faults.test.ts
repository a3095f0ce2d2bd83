/**
 * Fault injection and the request log: what tests of the adapter and the benchmark rely on.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.js';
import { clientsFor, codeOf, node, pod, strategic } from './support.js';

let sandbox: KubeSandbox;
let core: ReturnType<typeof clientsFor>['core'];

beforeAll(async () => {
  sandbox = await startKubeSandbox();
  ({ core } = clientsFor(sandbox));
  sandbox.seed([node('n1'), ...Array.from({ length: 6 }, (_, i) => pod('default', `p${i}`, 'n1'))]);
});
afterAll(() => sandbox.stop());
beforeEach(() => {
  sandbox.faults.clear();
  sandbox.resetRequests();
});

async function pages(limit: number): Promise<(number | string)[]> {
  const seen: (number | string)[] = [];
  let token: string | undefined;
  do {
    try {
      const list = await core.listPodForAllNamespaces({ limit, ...(token ? { _continue: token } : {}) });
      seen.push(list.items.length);
      token = list.metadata?._continue;
    } catch (error) {
      seen.push(`error ${(error as { code: number }).code}`);
      return seen;
    }
  } while (token);
  return seen;
}

describe('failNext', () => {
  it('fails exactly the next N matching requests with the code, then lets them through', async () => {
    sandbox.faults.failNext({ method: 'GET', path: '/api/v1/nodes/n1' }, 2, 500);
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push(await codeOf(core.readNode({ name: 'n1' })));
    expect(codes).toEqual([500, 500, 200]);
    expect(sandbox.requests().map((r) => r.injected ?? false)).toEqual([true, true, false]);
  });

  it('leaves other methods and paths alone', async () => {
    sandbox.faults.failNext({ method: 'PATCH', path: /\/nodes\/n1\/status$/ }, 1, 409, 'Conflict');
    expect(await codeOf(core.readNode({ name: 'n1' }))).toBe(200);
    expect(await codeOf(core.patchNodeStatus({ name: 'n1', body: { status: {} } }, strategic))).toBe(409);
  });
});

describe('latency', () => {
  it('delays matching requests only', async () => {
    sandbox.faults.latency(150, { path: '/api/v1/nodes/n1' });
    const slow = performance.now();
    await core.readNode({ name: 'n1' });
    const slowMs = performance.now() - slow;
    const fast = performance.now();
    await core.listNode();
    expect(slowMs).toBeGreaterThanOrEqual(140);
    expect(performance.now() - fast).toBeLessThan(140);
  });
});

describe('breakPagination', () => {
  it.each([
    ['fails the k-th page with 500', 'error' as const, ['2', '2', 'error 500']],
    ['answers the k-th page with 410 Expired', 'expired' as const, ['2', '2', 'error 410']],
  ])('%s, once', async (_name, mode, expected) => {
    sandbox.faults.breakPagination({ path: '/api/v1/pods' }, { page: 3, mode });
    expect((await pages(2)).map(String)).toEqual(expected);
    expect(await pages(2)).toEqual([2, 2, 2]);
  });

  it('keeps breaking for `times` lists', async () => {
    sandbox.faults.breakPagination({ path: '/api/v1/pods' }, { page: 1, mode: 'error', times: 2 });
    expect([await pages(3), await pages(3), await pages(3)]).toEqual([['error 500'], ['error 500'], [3, 3]]);
  });
});

describe('request log', () => {
  it('records RBAC attributes and status, and counts by verb and resource/subresource', async () => {
    await core.readNamespacedPod({ namespace: 'default', name: 'p0' });
    await core.patchNodeStatus({ name: 'n1', body: { status: { volumesInUse: [] } } }, strategic);
    await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=n1' });
    await codeOf(core.readNode({ name: 'ghost' }));
    expect(sandbox.requests()).toEqual([
      {
        method: 'GET',
        path: '/api/v1/namespaces/default/pods/p0',
        verb: 'get',
        group: '',
        resource: 'pods',
        namespace: 'default',
        name: 'p0',
        status: 200,
      },
      {
        method: 'PATCH',
        path: '/api/v1/nodes/n1/status',
        verb: 'patch',
        group: '',
        resource: 'nodes',
        subresource: 'status',
        name: 'n1',
        status: 200,
      },
      { method: 'GET', path: '/api/v1/pods', verb: 'list', group: '', resource: 'pods', status: 200 },
      { method: 'GET', path: '/api/v1/nodes/ghost', verb: 'get', group: '', resource: 'nodes', name: 'ghost', status: 404 },
    ]);
    expect(sandbox.counters()).toEqual({ 'get pods': 1, 'patch nodes/status': 1, 'list pods': 1, 'get nodes': 1 });
    sandbox.resetRequests();
    expect([sandbox.requests(), sandbox.counters()]).toEqual([[], {}]);
  });
});
