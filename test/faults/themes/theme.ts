/**
 * Scenario themes: each seed plays one of its mode's, chosen by the seed alone. A theme biases
 * the seeded world towards a situation the plain random world rarely lines up in a few dozen
 * seeds (a dead node at exactly maxWaitForUnmount, a mass deletion in a cluster big enough for the
 * mass-detach guard, …): it may shape the cluster and script some steps; what a scripted step
 * leaves out, and every step it does not script, is drawn as usual. The invariants checked are
 * the same for every theme: a theme makes a situation happen, never a test aimed at one guard.
 */
import type { Ports } from '../../../lambda/composition.js';
import type { Random } from '../../../sandbox/generate/random.js';
import type { Kubelets } from '../../../sandbox/kubelets.js';
import type { Change, ClusterShape, FaultCluster } from '../cluster.js';
import { EVICTION_AFTER_MS } from '../eviction.js';
import type { Fault } from '../faults.js';
import type { MidPassRestart } from '../mid-pass.js';
import type { StackChoice, World } from '../rig.js';
import type { PassSpec } from '../pass-spec.js';

/** What a theme may look at and act on while it scripts a step: one for the whole run. */
export interface ThemeContext<State = unknown> {
  world: World;
  cluster: FaultCluster;
  kubelets: Kubelets;
  /** The theme's own stream, apart from the scenario's (its draws never shift the scenario's). */
  random: Random;
  /** Spares a node's entry from invariant 5 (EC2 lost the pair behind our back) until the returned function is called. */
  pardonReported(volumeId: string, nodeName: string): () => void;
  /** What the theme carries from one step of this run to the next (`Theme.state` made it). */
  state: State;
}

/** Armed for one step's passes (like a mid-pass restart): `stop` ends it, `note` says what happened. */
export interface ArmedEvent {
  stop(): void;
  note(): string | undefined;
}

/** One step as a theme scripts it: every field given replaces the drawn one. */
export interface ScriptedStep {
  /** Cluster changes, in order, instead of the drawn one. */
  changes?: Change[];
  faults?: Fault[];
  passes?: PassSpec[];
  /** How far the clock moves after the step. */
  advance?: number;
  /** Replaces the drawn mid-pass restart (`undefined` given: none this step). */
  restart?: MidPassRestart | undefined;
  /** Before the step's passes (kcm and the kubelets have acted): what another actor does first; says what it did. */
  prepare?(ctx: ThemeContext): Promise<string | undefined>;
  /** What happens to every pass's ports this step (the first round's passes): a port-level fault. */
  wrapPorts?: (ports: Ports) => Ports;
  /** Something the theme arms for the step's passes. */
  arm?(ctx: ThemeContext): ArmedEvent;
  /** A second round in the same step, seconds later, while the step's faults still hold (scenario.ts `followUp`). */
  then?: FollowUp;
}

/** Once the step's passes are over: the cluster changes again (decided then), then these passes run. */
export interface FollowUp {
  changes(): Change[];
  passes: PassSpec[];
}

export interface Theme<State = unknown> {
  name: string;
  /** The world to start, when not the usual one (a csi-attacher beside us, other settings). */
  stack?: StackChoice;
  /** The cluster to build; the usual small one when left out. */
  shape?: ClusterShape;
  /** The theme's memory for one run, made as the run starts: nothing of a run outlives it. */
  state?(): State;
  /** The script for step `step` (1-based), or undefined to draw it as usual. */
  step?(step: number, ctx: ThemeContext<State>): ScriptedStep | undefined;
}

/** The plain random world. */
export const PLAIN: Theme = { name: 'plain' };

/** A full pass nobody kills. */
export const FULL_PASS: PassSpec = {};

/**
 * A step in which one full pass runs and nothing fails (the cluster still goes on: evictions):
 * attaches go through, and one step later they are reported and the kubelets mount them.
 */
export const CALM_STEP: ScriptedStep = {
  changes: [{ kind: 'none' }],
  faults: [],
  passes: [FULL_PASS],
  advance: 15_000,
  restart: undefined,
};

/** The passes, one of them (half the time) killed at a drawn call, mostly early, its effect landed or not. */
export function killOne(passes: PassSpec[], random: Random): PassSpec[] {
  if (!random.chance(0.5) || passes.length === 0) return passes;
  const doomed = random.int(passes.length);
  const kill = { atCall: random.between(1, 24), afterEffect: random.chance(0.5) };
  return passes.map((spec, i) => (i === doomed ? { ...spec, kill } : spec));
}

/** Steps before a theme's own: every pod's volume attached, then reported, then mounted by the kubelets. */
const SETTLING_STEPS = 2;

/** A theme's steps on a settled cluster: `own` is asked for step 1, 2, … after the settling steps. */
export function onSettledCluster<State = unknown>(
  own: (step: number, ctx: ThemeContext<State>) => ScriptedStep | undefined,
): NonNullable<Theme<State>['step']> {
  return (step, ctx) => (step <= SETTLING_STEPS ? CALM_STEP : own(step - SETTLING_STEPS, ctx));
}

/** The busiest node dies (NotReady, its kubelet stops); the clock then moves to when taint-based eviction takes its pods. */
export function busiestNodeDies(cluster: FaultCluster): ScriptedStep {
  const node = busiestNodes(cluster)[0];
  return { ...CALM_STEP, changes: node ? [{ kind: 'notReady', node: node.name }] : [], advance: EVICTION_AFTER_MS };
}

/** The live nodes (not deleted, not terminated) holding the most exclusive-volume pods, most first. */
export function busiestNodes(cluster: FaultCluster): FaultCluster['nodes'] {
  const live = cluster.nodes.filter(
    (n) => !cluster.deleted.has(n.name) && !cluster.terminated.has(n.name) && !cluster.notReady.has(n.name),
  );
  const pods = (name: string) => cluster.pods.filter((p) => p.nodeName === name && p.claims[0] !== 'shared-block').length;
  return [...live].sort((a, b) => pods(b.name) - pods(a.name) || (a.name < b.name ? -1 : 1));
}
