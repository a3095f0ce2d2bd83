/**
 * The UnauthorizedCalls alarm covers Kubernetes calls too (issue 27): a 403 Forbidden from the API
 * server on a call the controller needs counts as a refused call, wherever the pass meets it: a
 * cluster read (the pass goes on with nothing read), a status write (written down, the pass goes on)
 * or the attacher's Lease (the pass cannot run at all).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Metric } from '../../lambda/observability/metric-names.js';
import { lambdaContext } from '../../sandbox/events.js';
import { startWorld, type World, type WorldOptions } from '../../sandbox/world.js';
import { readEmf } from './emf.js';

let world: World | undefined;
let stdout: string;

beforeEach(() => {
  // Metrics on, as in Lambda (the test runner turns Powertools' metrics off everywhere else).
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  stdout = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
});
afterEach(async () => {
  await world?.stop();
  world = undefined;
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

async function started(options: WorldOptions = {}): Promise<World> {
  world = await startWorld({ nodes: 1, ...options });
  return world;
}
const values = (name: string) =>
  readEmf(stdout)
    .filter((m) => m.name === name)
    .map((m) => m.value);

describe('a 403 Forbidden from the Kubernetes API counts in UnauthorizedCalls', () => {
  it('on a cluster read: the pass attaches and detaches nothing, and says why', async () => {
    const w = await started();
    w.kube.faults.failNext({ method: 'GET', path: '/api/v1/pods' }, 1, 403);

    expect(await w.handlers().scheduled({ pass: 'full' }, lambdaContext())).toMatchObject({ converged: false, actions: 0 });

    expect(values(Metric.PassFailures)).toEqual([1]);
    expect(values(Metric.UnauthorizedCalls)).toEqual([1]);
  });

  it('on a status write: the attach stands, the refused write is counted', async () => {
    const w = await started();
    const volume = await w.createVolume({ name: 'data-db-0' });
    w.addPod('db-0', volume, 'node-1');
    w.kube.faults.failNext({ method: 'PATCH', path: /\/api\/v1\/nodes\/node-1\/status$/ }, 1, 403);

    await w.handlers().scheduled({ pass: 'full' }, lambdaContext());

    expect(readEmf(stdout).filter((m) => m.name === Metric.Actions)).toEqual([
      expect.objectContaining({ value: 1, dimensions: expect.objectContaining({ Kind: 'attach', Outcome: 'ok' }) as object }),
    ]);
    expect(values(Metric.UnauthorizedCalls)).toEqual([1]);
  });

  it("on the attacher's Lease: the pass cannot run, and both PassFailures and UnauthorizedCalls say so", async () => {
    const w = await started({ mode: 'attacher', simulateKcm: true, env: { LEASE_FENCE: 'on' } });
    w.kube.faults.failNext({ method: 'GET', path: /\/leases\// }, 1, 403);

    await expect(w.handlers().scheduled({ pass: 'full' }, lambdaContext())).rejects.toThrow(/403 Forbidden/);

    expect(values(Metric.PassFailures)).toEqual([1]);
    expect(values(Metric.UnauthorizedCalls)).toEqual([1]);
  });
});
