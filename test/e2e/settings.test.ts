/** The stuck-attach limit and the per-pass attach wait are settings, carried by the composition root. */
import { describe, expect, it } from 'vitest';
import type { Controller } from '../../lambda/composition.js';
import type { RunningClock } from '../../sandbox/clock.js';
import { FAST_CONTROLLER, type World } from '../../sandbox/world.js';
import { useWorld } from './world-fixture.js';

let world: World;
let controller: Controller;
let clock: RunningClock;
useWorld((started) => ({ world, controller, clock } = started), {
  env: { STUCK_ATTACH_SECONDS: '30', MAX_ATTACH_WAIT_SECONDS: '1' },
  // No attach wait among the overrides: it comes from MAX_ATTACH_WAIT_SECONDS.
  controller: { ec2Wait: FAST_CONTROLLER.ec2Wait!, waits: { maxDetachWaitMs: 5_000, reserveMs: 500 } },
});

const fullPass = () => controller.fullPass({ deadline: clock.now() + 30_000 });

describe('STUCK_ATTACH_SECONDS and MAX_ATTACH_WAIT_SECONDS', () => {
  it('a pass waits MAX_ATTACH_WAIT_SECONDS for an attach, and an attach stuck past STUCK_ATTACH_SECONDS is retried', async () => {
    expect(controller.config).toMatchObject({ maxAttachWaitMs: 1_000, plan: { stuckAttachMs: 30_000 } });
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');
    world.ec2.stickAttach(volume.volumeId);

    const started = clock.now();
    const first = await fullPass();
    expect(first.results).toEqual([expect.objectContaining({ kind: 'attach', outcome: 'deferred' })]);
    expect(clock.now() - started).toBeLessThan(3_000);

    const resolved = await fullPass(); // the next pass resolves the ended operation: EC2 says attaching
    expect(resolved.actions.filter((a) => a.kind === 'detach')).toEqual([]);

    clock.advance(31_000);
    const unstuck = await fullPass();
    expect(unstuck.results).toEqual([expect.objectContaining({ kind: 'detach', outcome: 'ok', forcedTrigger: 'stuck-attach' })]);
  });
});
