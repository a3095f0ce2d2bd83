/**
 * maxWaitForUnmount is a strict boundary, as upstream's reconciler compares it
 * (`elapsedTime > maxWaitForUnmountDuration`): a volume mounted on a not-Ready node waits through
 * the whole limit and is detached only once more time than that has passed.
 */
import { describe, expect, it } from 'vitest';
import { decideDetach, type DetachFacts } from '../../lambda/core/detach-decision.js';
import { DEFAULT_PLAN_CONFIG } from '../../lambda/core/config.js';
import { attachment, MIN, T0, uname, view, vol } from './builders.js';

const V = vol(3);
const LIMIT = DEFAULT_PLAN_CONFIG.maxWaitForUnmountMs!;

/** Mounted on a not-Ready node, detach requested at T0, decided `waited` ms later. */
function decideAfter(waited: number, node: DetachFacts['node'] = view('node-a', { ready: false, inUse: [V] })) {
  return decideDetach({
    attachment: attachment('node-a', { mounted: true }),
    uniqueName: uname(V),
    node,
    instanceState: 'running',
    requestedAt: T0,
    now: T0 + waited,
    maxWaitForUnmountMs: LIMIT,
  });
}

describe('the unmount timeout boundary is strict (upstream compares with >)', () => {
  it('is six minutes by default', () => {
    expect(LIMIT).toBe(6 * MIN);
  });

  it.each<[string, number, boolean]>([
    ['one millisecond before the limit: waits', LIMIT - 1, false],
    ['exactly at the limit: still waits', LIMIT, false],
    ['one millisecond past the limit: timeout detach', LIMIT + 1, true],
  ])('%s', (_name, waited, detaches) => {
    const decision = decideAfter(waited);
    expect(decision.detach).toBe(detaches);
    if (decision.detach) expect(decision).toMatchObject({ trigger: 'unmount-timeout', ec2Force: false });
  });

  it('applies the same boundary when the node object is gone and the last word was mounted', () => {
    expect(decideAfter(LIMIT, undefined).detach).toBe(false);
    expect(decideAfter(LIMIT + 1, undefined)).toMatchObject({ detach: true, trigger: 'unmount-timeout' });
  });
});
