import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Controller } from '../../lambda/composition.js';
import { handler as scheduled } from '../../lambda/handlers/scheduled.js';
import { startWorld, type World } from '../../sandbox/world.js';
import { lambdaContext, wireHandlers } from '../support/lambda.js';

vi.hoisted(() => Object.assign(process.env, { POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'ERROR' }));

const SIX_LISTS = {
  'list nodes': 1,
  'list pods': 1,
  'list persistentvolumeclaims': 1,
  'list persistentvolumes': 1,
  'list volumeattachments': 1,
  'list csinodes': 1,
};

let world: World;
let controller: Controller;
let skew = 0;

beforeAll(async () => {
  world = await startWorld({ nodes: 2 });
  controller = wireHandlers(world, {}, { clock: () => Date.now() + skew });
  for (let i = 0; i < 3; i++) {
    const volume = await world.createVolume({ name: `data-${i}` });
    world.addPod(`db-${i}`, volume, 'node-1');
  }
  await scheduled({ pass: 'full' }, lambdaContext());
});
afterAll(async () => {
  await controller?.close();
  await world?.stop();
});

describe('a converged cluster costs only reads', () => {
  it('a pass with nothing to do lists each kind once and writes nothing to the API server', async () => {
    world.kube.resetRequests();
    const result = await scheduled({ pass: 'full' }, lambdaContext());
    expect(result).toMatchObject({ converged: true, actions: 0 });
    expect(world.kube.counters()).toEqual(SIX_LISTS);
  });

  it('verification against EC2 (every sync period) that finds nothing new writes nothing either', async () => {
    skew += 120_000; // past SYNC_PERIOD_SECONDS: this pass verifies every volume
    world.kube.resetRequests();
    const before = world.ec2.counters().calls.DescribeVolumes ?? 0;
    const result = await scheduled({ pass: 'full' }, lambdaContext());
    expect(result).toMatchObject({ converged: true, actions: 0 });
    expect((world.ec2.counters().calls.DescribeVolumes ?? 0) - before).toBe(1);
    expect(world.kube.counters()).toEqual(SIX_LISTS);
  });
});
