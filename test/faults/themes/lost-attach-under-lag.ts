/**
 * EC2's DescribeVolumes lags behind AttachVolume (eventual consistency) past the pass's wait: a
 * new pod's attach is accepted, yet the volume shows no attachment when the pass stops waiting.
 * Seconds later the pod is deleted and created on another node, and the next pass, reading EC2
 * still from before the attach, must go by what the store kept: the accepted attach is
 * `uncertain`, so the io2 volume (Multi-Attach enabled in EC2) behind the RWO claim stays off the
 * second node (invariant 1) until EC2 settles the first.
 */
import { moveOf, pickExclusiveMove, settleThenTwice, SPARE_CLAIMS } from './exclusive.js';
import { CALM_STEP, FULL_PASS, type ScriptedStep, type Theme, type ThemeContext } from './theme.js';

/** Longer than a step's passes take: every read in the step shows the volume from before its attach. */
const LAG_MS = 30_000;

function lostAttach(ctx: ThemeContext): ScriptedStep | undefined {
  const move = pickExclusiveMove(ctx.world, ctx.cluster, ctx.random);
  if (move === undefined) return undefined;
  return {
    ...CALM_STEP,
    changes: [{ kind: 'add', claim: move.claim, node: move.from }],
    faults: [{ kind: 'ec2-read-lag', ms: LAG_MS }],
    passes: [FULL_PASS],
    then: { changes: () => [moveOf(ctx.cluster, move)], passes: [FULL_PASS] },
  };
}

export const LOST_ATTACH_UNDER_LAG: Theme = {
  name: 'lost-attach-under-read-lag',
  shape: SPARE_CLAIMS,
  step: (step, ctx) => settleThenTwice(step, ctx, lostAttach),
};
