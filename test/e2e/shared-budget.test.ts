/**
 * Three invocations attaching at once against EC2's real AttachVolume bucket (50, refilled 5/s):
 * with the budget shared through the table, set to the whole refill rate, not one call is throttled.
 * (With a bucket per environment three of them could send three times the refill.) The clock is
 * real time: the pass's own pace must not be what holds the rate down.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunningClock } from '../../sandbox/clock.js';
import { EC2_THROTTLE } from '../../sandbox/ec2/throttle.js';
import { startWorld, type World } from '../../sandbox/world.js';

/**
 * EC2's whole refill rate, and its capacity less 5 tokens: a call reaches EC2 a little after its
 * slot, and unevenly, so a burst as large as the bucket would leave no room for one call that
 * arrives late behind the next; 5 tokens absorb a second of such jitter.
 */
const WHOLE_BUCKET = {
  EC2_ATTACH_VOLUME_RATE: String(EC2_THROTTLE.mutating.refillPerSecond),
  EC2_ATTACH_VOLUME_BURST: String(EC2_THROTTLE.mutating.capacity - 5),
  // Enough volumes in flight that the budget, not the pass, sets the pace.
  MAX_CONCURRENT_OPERATIONS: '40',
};
const PODS = 64;

let world: World;
beforeEach(async () => {
  world = await startWorld({ nodes: 8, clock: new RunningClock(), env: WHOLE_BUCKET });
});
afterEach(async () => world.stop());

describe('the shared budget across execution environments', () => {
  it(`${PODS} attaches over 3 invocations in parallel, EC2's real bucket: every volume attached, none throttled`, async () => {
    for (let i = 0; i < PODS; i++) world.addPod(`app-${i}`, await world.createVolume({ name: `data-${i}` }), world.nodes[i % 8]!.name);
    world.ec2.configureThrottle({ mutating: EC2_THROTTLE.mutating });
    world.ec2.resetCounters();
    const started = world.clock.now();

    await Promise.all([1, 2, 3].map(() => world.invocation().fullPass({ deadline: world.clock.now() + 120_000 })));

    const counters = world.ec2.counters();
    expect(counters.throttled.AttachVolume ?? 0).toBe(0);
    expect(counters.calls.AttachVolume).toBe(PODS);
    // Burst, then the refill: the last of them no sooner than EC2's bucket allows.
    const seconds = (world.clock.now() - started) / 1000;
    expect(seconds).toBeGreaterThanOrEqual((PODS - EC2_THROTTLE.mutating.capacity) / EC2_THROTTLE.mutating.refillPerSecond);
    // Real time by design (EC2's bucket refills on the wall clock): allow for a loaded machine.
  }, 120_000);
});
