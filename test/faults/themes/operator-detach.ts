/**
 * Someone detaches a mounted volume behind the controller's back (the EC2 console, a cleanup
 * script): EC2 lets it go, yet the node still lists it and its pod still needs it. The next pass
 * that verifies against EC2 must take it off the node's list as it attaches it again: a node may
 * not claim a volume EC2 shows `attaching` (invariant 5). Until that pass has run, the stale entry
 * is the operator's doing: the oracle pardons it, and the pardon ends with that pass.
 */
import { volumeIdOf } from '../../../lambda/core/volume-id.js';
import type { KubeNode } from '../../../lambda/core/kube.js';
import { CALM_STEP, onSettledCluster, type ScriptedStep, type Theme, type ThemeContext } from './theme.js';

/** Past the controller's default sync period (60 s), so the next full pass verifies against EC2. */
const PAST_SYNC_PERIOD_MS = 90_000;

/** What a run remembers between its two steps: how to end the pardon of its lost pair. */
interface PardonState {
  endPardon?: () => void;
}

/** A volume a Ready node on a running instance lists, and the node. */
function listedVolume(ctx: ThemeContext<PardonState>): { volumeId: string; node: string } | undefined {
  const { world, cluster } = ctx;
  const running = (name: string) => {
    const instanceId = cluster.nodes.find((n) => n.name === name)?.instanceId;
    return world.ec2.world.instances.get(instanceId ?? '')?.state === 'running';
  };
  const listed = (world.kube.list('Node') as KubeNode[])
    .map((node) => ({ name: node.metadata.name ?? '', entries: node.status?.volumesAttached ?? [] }))
    .filter(({ name }) => !cluster.notReady.has(name) && running(name))
    .flatMap(({ name, entries }) => entries.map((entry) => ({ volumeId: volumeIdOf(entry.name), node: name })))
    .filter((pair): pair is { volumeId: string; node: string } => pair.volumeId !== undefined);
  return listed.length === 0 ? undefined : ctx.random.pick(listed);
}

function operatorDetaches(ctx: ThemeContext<PardonState>): ScriptedStep | undefined {
  const lost = listedVolume(ctx);
  if (lost === undefined) return undefined;
  ctx.state.endPardon = ctx.pardonReported(lost.volumeId, lost.node);
  // The step's own pass does not verify yet (the last verification is seconds old): the entry stays, pardoned.
  return { ...CALM_STEP, changes: [{ kind: 'operatorDetach', ...lost }], advance: PAST_SYNC_PERIOD_MS };
}

function passVerifies(ctx: ThemeContext<PardonState>): ScriptedStep {
  const end = ctx.state.endPardon;
  if (end === undefined) return CALM_STEP;
  ctx.state.endPardon = undefined;
  // The pardon ends with the step's passes, before its checks: by then the node must have dropped the entry.
  return { ...CALM_STEP, arm: () => ({ stop: end, note: () => 'pardon of the lost pair over' }) };
}

export const OPERATOR_DETACH: Theme<PardonState> = {
  name: 'operator-detach',
  state: () => ({}),
  step: onSettledCluster((step, ctx) => (step === 1 ? operatorDetaches(ctx) : step === 2 ? passVerifies(ctx) : undefined)),
};
