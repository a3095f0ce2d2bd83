/**
 * One node's instance goes through every EC2 state while operations on it are in flight: a fresh
 * claim's attach is under way (`attaching`) as the instance is stopped (`stopping`, its pods
 * terminated by the graceful shutdown, their volumes still mounted), then `stopped`; it is started
 * (`pending`) with an attach sent while it boots, runs again (`running`), and is terminated
 * (`shutting-down`, then `terminated` by convergence). Every state is seen by a step's passes. Each transition takes a little longer than
 * the step after it, so passes see every state, not just the ends; targeted passes for the node and
 * its instance run beside full ones.
 */
import type { PassSpec } from '../pass-spec.js';
import { freeVolumes, SPARE_CLAIMS } from './exclusive.js';
import {
  busiestNodes,
  CALM_STEP,
  FULL_PASS,
  killOne,
  onSettledCluster,
  type ScriptedStep,
  type Theme,
  type ThemeContext,
} from './theme.js';

/** How long each transition takes (pending → running, stopping → stopped, shutting-down → terminated). */
const TRANSITION_MS = 20_000;
/** A step inside a transition: the instance is still between states when the next step's passes run. */
const MID_TRANSITION_MS = 2_000;

type Chosen = { node: string; instanceId: string };

function during(ctx: ThemeContext, passes: PassSpec[], advance: number, changes: ScriptedStep['changes'] = []): ScriptedStep {
  return { ...CALM_STEP, changes, passes: killOne(passes, ctx.random), advance };
}

/** A free claim's pod scheduled on the node: its attach goes out this step, and no time passes. */
function attachOnto(ctx: ThemeContext, node: string): ScriptedStep['changes'] {
  const free = freeVolumes(ctx.world, ctx.cluster);
  return free.length === 0 ? [] : [{ kind: 'add', claim: ctx.random.pick(free).claim.name, node }];
}

function lifecycle(step: number, ctx: ThemeContext<{ chosen?: Chosen }>): ScriptedStep | undefined {
  if (step === 1) {
    const node = busiestNodes(ctx.cluster)[0];
    if (node === undefined) return undefined;
    ctx.state.chosen = { node: node.name, instanceId: node.instanceId };
    Object.assign(ctx.world.ec2.world.config.delays, {
      instanceStartMs: TRANSITION_MS,
      instanceStopMs: TRANSITION_MS,
      instanceTerminateMs: TRANSITION_MS,
    });
  }
  const chosen = ctx.state.chosen;
  if (chosen === undefined) return undefined;
  const ofInstance: PassSpec = { target: { kind: 'instance', instanceId: chosen.instanceId } };
  const ofNode: PassSpec = { target: { kind: 'node', name: chosen.node } };
  switch (step) {
    case 1: // running, an attach in flight
      return during(ctx, [FULL_PASS, ofNode], 0, attachOnto(ctx, chosen.node));
    case 2: // stopping
      return during(ctx, [FULL_PASS, ofInstance], MID_TRANSITION_MS, [{ kind: 'stop', node: chosen.node }]);
    case 3: // still stopping; stopped once the step is over
      return during(ctx, [FULL_PASS, ofNode], TRANSITION_MS);
    case 4: // stopped
      return during(ctx, [FULL_PASS, ofInstance], 0);
    case 5: // pending, an attach sent while it boots; running once the step is over
      return during(ctx, [FULL_PASS, ofNode], TRANSITION_MS, [
        { kind: 'start', node: chosen.node },
        ...(attachOnto(ctx, chosen.node) ?? []),
      ]);
    case 6: // shutting-down; convergence sees it terminated
      return during(ctx, [FULL_PASS, ofInstance], MID_TRANSITION_MS, [{ kind: 'terminate', node: chosen.node }]);
    default:
      return undefined;
  }
}

export const EVERY_INSTANCE_STATE: Theme<{ chosen?: Chosen }> = {
  name: 'every-instance-state',
  shape: SPARE_CLAIMS,
  state: () => ({}),
  step: onSettledCluster(lifecycle),
};
