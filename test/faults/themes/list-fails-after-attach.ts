/**
 * A new pod's volume has just been attached, and the node does not list it yet, so the kubelet has
 * not mounted it: nothing on the node protects it. Just then the API server fails the pass's pod
 * list (a 500 from an overloaded server during a rollout). The pass knows no pod at all: an
 * incomplete read is no evidence that the volume is unneeded (invariant 3), so it detaches
 * nothing, and the next pass reports the volume as usual.
 */
import { pickExclusiveMove, SPARE_CLAIMS } from './exclusive.js';
import { CALM_STEP, FULL_PASS, onSettledCluster, type ScriptedStep, type Theme, type ThemeContext } from './theme.js';

function newPod(ctx: ThemeContext): ScriptedStep | undefined {
  const place = pickExclusiveMove(ctx.world, ctx.cluster, ctx.random);
  return place === undefined ? undefined : { ...CALM_STEP, changes: [{ kind: 'add', claim: place.claim, node: place.from }] };
}

/**
 * The server fails pod lists for a while (one attempt per call in the rig: each failure loses a
 * list): the pass that finds the attach done cannot list pods, nor can the one seconds after it,
 * which meets the volume attached, unlisted and unmounted.
 */
const PODS_LIST_FAILS: ScriptedStep = {
  ...CALM_STEP,
  faults: [{ kind: 'kube-error', method: 'GET', path: '/api/v1/pods', code: 500, count: 2 }],
  then: { changes: () => [], passes: [FULL_PASS] },
};

export const LIST_FAILS_AFTER_ATTACH: Theme = {
  name: 'list-fails-after-attach',
  shape: SPARE_CLAIMS,
  step: onSettledCluster((step, ctx) => (step === 1 ? newPod(ctx) : step === 2 ? PODS_LIST_FAILS : undefined)),
};
