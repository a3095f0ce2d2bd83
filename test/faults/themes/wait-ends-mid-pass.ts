/**
 * Passes overlap across the end of a window: a node dies with its volumes mounted, its pods are
 * evicted, and a burst of passes (full, for the node, for its instance) starts a second before
 * maxWaitForUnmount is over; a few API requests in, while they are all still acting, the clock
 * moves past the end (a pass takes real time). Passes of one step then act on both sides of the
 * boundary: what one read before it, another reads after, and every DetachVolume is judged at the
 * moment EC2 receives it (invariant 2), not at the start of its pass.
 */
import { SMALL_CLUSTER } from '../cluster.js';
import type { PassSpec } from '../pass-spec.js';
import { MAX_WAIT_FOR_UNMOUNT_MS } from '../rig.js';
import {
  busiestNodeDies,
  CALM_STEP,
  FULL_PASS,
  killOne,
  onSettledCluster,
  type ArmedEvent,
  type Theme,
  type ThemeContext,
} from './theme.js';

/** How far before the end of the wait the burst starts, and how far the clock moves mid-pass. */
const BEFORE_END_MS = 1_000;
const CROSSING_MS = 2_000;

/** At the step's `atRequest`th Kubernetes request the clock moves on: every pass of the step is under way by then. */
function armCrossing({ world }: ThemeContext, atRequest: number): ArmedEvent {
  let seen = 0;
  let note: string | undefined;
  const stop = world.kube.onRequest({
    before: () => {
      if (++seen !== atRequest) return;
      world.clock.advance(CROSSING_MS);
      note = `the unmount wait ended at request ${seen}, mid-pass`;
    },
  });
  return { stop, note: () => note };
}

export const WAIT_ENDS_MID_PASS: Theme<{ dead?: { node: string; instanceId: string } }> = {
  name: 'wait-ends-mid-pass',
  shape: { ...SMALL_CLUSTER, podChance: 1 },
  state: () => ({}),
  step: onSettledCluster((step, ctx) => {
    if (step === 1) {
      const dies = busiestNodeDies(ctx.cluster);
      const change = dies.changes?.[0];
      if (change?.kind === 'notReady') {
        const node = ctx.cluster.nodes.find((n) => n.name === change.node);
        if (node) ctx.state.dead = { node: node.name, instanceId: node.instanceId };
      }
      return dies;
    }
    // The pods are evicted as this step begins; its pass starts the unmount timeout.
    if (step === 2) return { ...CALM_STEP, advance: MAX_WAIT_FOR_UNMOUNT_MS - BEFORE_END_MS };
    const dead = ctx.state.dead;
    if (step !== 3 || dead === undefined) return step === 4 ? CALM_STEP : undefined;
    const passes: PassSpec[] = [
      FULL_PASS,
      FULL_PASS,
      { target: { kind: 'node', name: dead.node } },
      { target: { kind: 'instance', instanceId: dead.instanceId } },
    ];
    const atRequest = ctx.random.between(4, 16);
    return { ...CALM_STEP, passes: killOne(passes, ctx.random), arm: (armed) => armCrossing(armed, atRequest) };
  }),
};
