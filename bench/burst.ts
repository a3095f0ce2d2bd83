/**
 * A burst of attaches: N pods scheduled at once, each with a new volume, and one full pass (the
 * scheduled Lambda) attaching them against EC2's real mutating budget (a bucket of 50 refilled at
 * 5/s, on the sandbox's real-time clock). EC2's counters are sampled while it runs: accepted
 * AttachVolume calls per second from the first to the last, and how many were throttled.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Actors } from '../sandbox/demo/actors.js';
import type { LocalStack } from '../sandbox/local-stack.js';
import { EC2_THROTTLE } from '../sandbox/ec2/throttle.js';
import type { GenNode } from '../sandbox/generate/model.js';

export interface Burst {
  requested: number;
  accepted: number;
  throttled: number;
  seconds: number;
  perSecond: number;
  /** What EC2's bucket allows for `requested` attaches: 50 at once, then 5 a second. */
  budgetPerSecond: number;
  finished: boolean;
}

function accepted(stage: LocalStack): { accepted: number; throttled: number } {
  const c = stage.ec2.counters();
  const throttled = c.throttled.AttachVolume ?? 0;
  return { accepted: (c.calls.AttachVolume ?? 0) - throttled - (c.injected.AttachVolume ?? 0), throttled };
}

export async function measureBurst(stage: LocalStack, actors: Actors, size: number, capMs: number): Promise<Burst> {
  const nodes = actors.cluster.nodes;
  for (let i = 0; i < size; i++) {
    const node = nodes[i % nodes.length] as GenNode;
    const claim = `data-burst-${i}`;
    actors.provision('burst', claim, node.zone);
    actors.schedule(
      {
        namespace: 'burst',
        name: `burst-${i}`,
        app: 'burst',
        owner: { kind: 'StatefulSet', name: 'burst', uid: 'burst-uid' },
        claims: [claim],
      },
      node,
    );
  }
  stage.ec2.configureThrottle(EC2_THROTTLE);
  const base = accepted(stage);
  const abort = new AbortController();
  const pass = stage.controller.fullPass({ deadline: stage.clock.now() + capMs, signal: abort.signal }).catch(() => undefined);
  const started = performance.now();
  let first: number | undefined;
  let last = started;
  let now = base;
  while (performance.now() - started < capMs) {
    await sleep(100);
    const seen = accepted(stage);
    if (seen.accepted > now.accepted) {
      first ??= performance.now();
      last = performance.now();
    }
    now = seen;
    if (now.accepted - base.accepted >= size) break;
  }
  abort.abort();
  void pass;
  const done = now.accepted - base.accepted;
  const seconds = first === undefined ? 0 : (last - first) / 1000;
  return {
    requested: size,
    accepted: done,
    throttled: now.throttled - base.throttled,
    seconds,
    perSecond: seconds > 0 ? done / seconds : 0,
    budgetPerSecond:
      size <= EC2_THROTTLE.mutating.capacity
        ? Infinity
        : size / ((size - EC2_THROTTLE.mutating.capacity) / EC2_THROTTLE.mutating.refillPerSecond),
    finished: done >= size,
  };
}
