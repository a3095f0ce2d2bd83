/**
 * The burst across execution environments: `size` pods scheduled at once, each with a new volume,
 * and `environments` full passes started together, each in its own `invocation()` of one local
 * stack (own composition root, clients, caches), against the local EC2's real AttachVolume bucket
 * (50, refilled 5/s) on a real-time clock. They share only the store, and with it the budget.
 * Figures: accepted AttachVolume calls per second from the first to the last, that rate ÷ EC2's
 * refill rate, how close the time taken came to the fastest the budget allows, and the share of
 * calls throttled.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RunningClock } from '../sandbox/clock.js';
import { EC2_THROTTLE } from '../sandbox/ec2/throttle.js';
import { startWorld, type World } from '../sandbox/world.js';

export interface EnvironmentBurst {
  environments: number;
  requested: number;
  accepted: number;
  calls: number;
  throttled: number;
  seconds: number;
  perSecond: number;
  /** perSecond ÷ EC2's refill rate (5/s). */
  ofRefill: number;
  /**
   * The fastest the budget allows ÷ the time taken: a burst at once, then its rate; so 1 is a
   * budget spent to the full. `ofEc2Bucket` is the same against EC2's bucket (50, then 5/s).
   */
  ofBudget: number;
  ofEc2Bucket: number;
  throttledShare: number;
  finished: boolean;
}

export interface EnvironmentBurstOptions {
  size: number;
  capMs: number;
  /** Controller settings (the budget's rate and burst among them). */
  env: Record<string, string>;
  budget: { ratePerSecond: number; burst: number };
  log: (line: string) => void;
}

const NODES = 40;

function sample(world: World) {
  const c = world.ec2.counters();
  const calls = c.calls.AttachVolume ?? 0;
  const throttled = c.throttled.AttachVolume ?? 0;
  return { calls, throttled, accepted: calls - throttled - (c.injected.AttachVolume ?? 0) };
}

export async function measureEnvironmentBurst(environments: number, options: EnvironmentBurstOptions): Promise<EnvironmentBurst> {
  const world = await startWorld({ nodes: NODES, clock: new RunningClock(), env: options.env });
  try {
    for (let i = 0; i < options.size; i++) {
      world.addPod(`burst-${i}`, await world.createVolume({ name: `data-burst-${i}` }), world.nodes[i % NODES]!.name);
    }
    world.ec2.configureThrottle({ mutating: EC2_THROTTLE.mutating });
    world.ec2.resetCounters();
    const abort = new AbortController();
    const budget = { deadline: world.clock.now() + options.capMs, signal: abort.signal };
    const passes = Array.from({ length: environments }, () =>
      world
        .invocation()
        .fullPass(budget)
        .catch(() => undefined),
    );
    const started = performance.now();
    let first: number | undefined;
    let last = started;
    let seen = sample(world);
    while (performance.now() - started < options.capMs && seen.accepted < options.size) {
      await sleep(100);
      const now = sample(world);
      if (now.accepted > seen.accepted) {
        first ??= performance.now();
        last = performance.now();
      }
      seen = now;
    }
    abort.abort();
    await Promise.all(passes);
    const seconds = first === undefined ? 0 : (last - first) / 1000;
    const perSecond = seconds > 0 ? seen.accepted / seconds : 0;
    const figures: EnvironmentBurst = {
      environments,
      requested: options.size,
      ...seen,
      seconds,
      perSecond,
      ofRefill: perSecond / EC2_THROTTLE.mutating.refillPerSecond,
      ofBudget: fastest(seen.accepted, options.budget) / seconds,
      ofEc2Bucket:
        fastest(seen.accepted, { ratePerSecond: EC2_THROTTLE.mutating.refillPerSecond, burst: EC2_THROTTLE.mutating.capacity }) / seconds,
      throttledShare: seen.calls > 0 ? seen.throttled / seen.calls : 0,
      finished: seen.accepted >= options.size,
    };
    options.log(`  ${environmentLine(figures)}`);
    return figures;
  } finally {
    await world.stop();
  }
}

/** Seconds from the first to the last of `calls` a bucket allows at best. */
function fastest(calls: number, size: { ratePerSecond: number; burst: number }): number {
  return Math.max(0, calls - size.burst) / size.ratePerSecond;
}

export function environmentLine(b: EnvironmentBurst): string {
  return `${b.environments} environment(s): ${b.accepted}/${b.requested} AttachVolume accepted in ${b.seconds.toFixed(1)} s = ${b.perSecond.toFixed(2)}/s, ${b.ofRefill.toFixed(3)} of EC2's refill, ${b.ofBudget.toFixed(3)} of the budget (${b.ofEc2Bucket.toFixed(3)} of EC2's bucket); ${b.throttled}/${b.calls} throttled (${(100 * b.throttledShare).toFixed(2)}%)${b.finished ? '' : '; not finished within the cap'}`;
}
