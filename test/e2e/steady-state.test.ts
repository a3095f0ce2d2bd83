import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunningClock } from '../../sandbox/clock.js';
import { lambdaContext } from '../../sandbox/events.js';
import type { Handlers } from '../../sandbox/local-stack.js';
import { startWorld, type World } from '../../sandbox/world.js';

const FIVE_LISTS = {
  'list nodes': 1,
  'list pods': 1,
  'list persistentvolumeclaims': 1,
  'list persistentvolumes': 1,
  'list volumeattachments': 1,
};

let world: World;
let handlers: Handlers;
const clock = new RunningClock();

beforeAll(async () => {
  world = await startWorld({ nodes: 2, clock });
  handlers = world.handlers();
  for (let i = 0; i < 3; i++) {
    const volume = await world.createVolume({ name: `data-${i}` });
    world.addPod(`db-${i}`, volume, 'node-1');
  }
  await handlers.scheduled({ pass: 'full' }, lambdaContext());
});
afterAll(async () => {
  await world?.stop();
});

describe('a converged cluster costs only reads', () => {
  it('a pass with nothing to do lists each kind once and writes nothing to the API server', async () => {
    world.kube.resetRequests();
    const result = await handlers.scheduled({ pass: 'full' }, lambdaContext());
    expect(result).toMatchObject({ converged: true, actions: 0 });
    expect(world.kube.counters()).toEqual(FIVE_LISTS);
  });

  it('verification against EC2 (every sync period) that finds nothing new writes nothing either', async () => {
    clock.advance(120_000); // past SYNC_PERIOD_SECONDS: this pass verifies every volume
    world.kube.resetRequests();
    const before = world.ec2.counters().calls.DescribeVolumes ?? 0;
    const result = await handlers.scheduled({ pass: 'full' }, lambdaContext());
    expect(result).toMatchObject({ converged: true, actions: 0 });
    expect((world.ec2.counters().calls.DescribeVolumes ?? 0) - before).toBe(1);
    expect(world.kube.counters()).toEqual(FIVE_LISTS);
  });
});
