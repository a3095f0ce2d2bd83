/**
 * One seeded scenario: a small cluster, then steps of (cluster change → faults → concurrent
 * passes, one of which may be killed at a random call) with DESIGN §11's invariants checked
 * around every step, then a clean phase that must converge (invariant 4). In attacher mode kcm
 * decides what is attached (it acts between passes and, now and then, in the middle of one) and
 * the invariants are attacher mode's (sandbox/oracle/attacher/README.md).
 */
import type { Ports } from '../../lambda/composition.js';
import { DEFAULT_PLAN_CONFIG } from '../../lambda/core/config.js';
import type { ActionResult } from '../../lambda/reconcile/pass/types.js';
import { Random } from '../../sandbox/generate/random.js';
import { Kubelets } from '../../sandbox/kubelets.js';
import type { Violation } from '../../sandbox/oracle/checks.js';
import type { DetachCall } from '../../sandbox/oracle/calls.js';
import { ApiLedger } from '../../sandbox/oracle/ledger.js';
import { storeKnows, unknownToStore } from '../../sandbox/oracle/store-known.js';
import { readTruth } from '../../sandbox/oracle/truth.js';
import { applyChange, buildCluster, clusterGoesOn, forgetGonePods, pickChange, type Change, type FaultCluster } from './cluster.js';
import {
  massDetachFigures,
  MassDetachWindowJudge,
  massDetachViolations,
  storedAttachments,
  type StoredAttachment,
} from '../../sandbox/oracle/mass-detach.js';
import { clearFaults, describeFault, inject, pickFaults, unstick, type Fault } from './faults.js';
import { armKcmRound, pickKcmRound } from './kcm-mid-pass.js';
import { killable, type Killable } from './killable.js';
import type { PassSpec } from './pass-spec.js';
import { armRestart, pickRestart } from './mid-pass.js';
import { scenarioMode, type ScenarioMode } from './mode.js';
import { LEASE_BOUND_MS, MASS_DETACH_RULE, MAX_WAIT_FOR_UNMOUNT_MS, type Mode, type Rig, type World } from './rig.js';
import { themeOf } from './themes/index.js';
import type { FollowUp, ScriptedStep, Theme, ThemeContext } from './themes/theme.js';

export interface ScenarioResult {
  seed: number;
  mode: Mode;
  /** The scenario theme the seed played (themes/index.ts). */
  theme: string;
  steps: number;
  passes: number;
  kills: number;
  converged: boolean;
  violations: (Violation & { step: string })[];
  /** What happened, one line per step (printed for a failing seed). */
  trace: string[];
  /** What each pass did, step by step, and the EC2 mutations each step made: the seed's outcome, compared run against run. */
  outcomes: string[];
}

const MINUTE = 60_000;
/** Exactly maxWaitForUnmount is among them: a detach at the boundary must still wait. */
const ADVANCES = [0, 2_000, 15_000, MINUTE, 100_000, MAX_WAIT_FOR_UNMOUNT_MS, 7 * MINUTE];

function pickPasses(cluster: FaultCluster, random: Random): PassSpec[] {
  const specs: PassSpec[] = Array.from({ length: random.between(1, 3) }, () => ({ ...pickTarget(cluster, random) }));
  if (random.chance(0.4)) random.pick(specs).kill = { atCall: pickKillPoint(random), afterEffect: random.chance(0.5) };
  return specs;
}

/** Anywhere in a pass: mostly early (where most calls are), sometimes deep into a long one. */
function pickKillPoint(random: Random): number {
  return random.chance(0.6) ? random.between(1, 30) : random.between(31, 200);
}

/** How long one unmount takes: mostly seconds, sometimes minutes, now and then hung past maxWaitForUnmount. */
function unmountTime(random: Random): number {
  const roll = random.next();
  if (roll < 0.7) return random.between(1, 20) * 1000;
  if (roll < 0.9) return random.between(20, 120) * 1000;
  return random.between(7, 12) * MINUTE;
}

function pickTarget(cluster: FaultCluster, random: Random): PassSpec {
  const node = random.pick(cluster.nodes);
  switch (random.int(6)) {
    case 0:
      return cluster.pods.length ? { target: { kind: 'pod', namespace: 'default', name: random.pick(cluster.pods).name } } : {};
    case 1:
      return { target: { kind: 'node', name: node.name } };
    case 2:
      return { target: { kind: 'instance', instanceId: node.instanceId } };
    case 3:
      return { target: { kind: 'volume', volumeId: random.pick(cluster.volumes).volumeId } };
    default:
      return {};
  }
}

function describePass(spec: PassSpec): string {
  const target = spec.target
    ? `${spec.target.kind}:${'name' in spec.target ? spec.target.name : 'instanceId' in spec.target ? spec.target.instanceId : spec.target.volumeId}`
    : 'full';
  return spec.kill ? `${target}†${spec.kill.atCall}${spec.kill.afterEffect ? '+' : '-'}` : target;
}

type PassOutcome = 'done' | 'killed' | 'threw';

/** How a pass ended, and what it did (its action results in its own order), one line for the seed's log. */
interface PassRun {
  outcome: PassOutcome;
  line: string;
}

/** `wrap`: what the step's script does to every pass's ports (e.g. a store whose writes conflict). */
async function runPass(world: World, spec: PassSpec, wrap: (ports: Ports) => Ports = (ports) => ports): Promise<PassRun> {
  let dying: Killable | undefined;
  const controller = world.invocation((ports) => (dying = killable(wrap(ports), spec.kill)).ports);
  const budget = { deadline: world.clock.now() + 5 * MINUTE };
  const pass = spec.target ? controller.targetedPass(spec.target, budget) : controller.fullPass(budget);
  const ended = await Promise.race([
    pass.then(
      (report) => ({ outcome: 'done' as const, line: report.results.map(describeResult).join(', ') }),
      (error: unknown) => ({ outcome: 'threw' as const, line: error instanceof Error ? error.message : String(error) }),
    ),
    dying!.killed.then(() => ({ outcome: 'killed' as const, line: '' })),
  ]);
  // Frozen, not closed (the stack closes it with the world): a request it left in flight lands and is
  // answered, as one a returned or dead Lambda left on the wire may; nothing it starts afterwards does.
  dying!.freeze();
  const run = { outcome: ended.outcome, line: `${describePass(spec)} ${ended.outcome}${ended.line ? `: ${ended.line}` : ''}` };
  if (process.env.DEBUG_PASSES) console.log('pass', run.line);
  return run;
}

function describeResult(r: ActionResult): string {
  return `${r.kind} ${r.volumeId}@${r.nodeName} ${r.outcome}${r.forcedTrigger ? ` (${r.forcedTrigger})` : ''} ${r.detail}`;
}

export async function runScenario(rig: Rig, seed: number, stepCount = 8, mode: Mode = 'controller'): Promise<ScenarioResult> {
  const theme = themeOf(seed, mode);
  const world = await rig.world(seed, mode, theme.stack);
  const random = new Random(seed);
  const unmounts = random.fork();
  const ledger = new ApiLedger(world.ec2, world.kube);
  const result: ScenarioResult = {
    seed,
    mode,
    theme: theme.name,
    steps: 0,
    passes: 0,
    kills: 0,
    converged: false,
    violations: [],
    trace: [],
    outcomes: [],
  };
  const kubelets = new Kubelets(world.kube, world.ec2, { unmountMs: () => unmountTime(unmounts) });
  const modeParts = scenarioMode(world, kubelets);
  const oracle = modeParts.oracle;
  try {
    const cluster = buildCluster(world, random, theme.shape);
    const themeCtx: ThemeContext = {
      world,
      cluster,
      kubelets,
      random: new Random(seed + THEME_STREAM),
      pardonReported: (volumeId, nodeName) => modeParts.pardonReported(volumeId, nodeName),
      state: theme.state?.(),
    };
    const windowJudge = new MassDetachWindowJudge(DEFAULT_PLAN_CONFIG.massDetachWindowMs);
    const parts: Parts = { world, random, ledger, result, mode: modeParts, kubelets, theme, themeCtx, windowJudge };
    for (let step = 1; step <= stepCount; step++) await playStep(parts, cluster, step);
    await converge(parts, cluster);
  } finally {
    oracle.stop();
    clearFaults(world);
    await world.close();
  }
  result.violations.unshift(...oracle.violations);
  if (world.turnstile.untimely > 0)
    throw new Error(
      `seed ${seed}: ${world.turnstile.untimely} request(s) were created while another was in service: something the turnstile does not order woke the program (a real timer?), so the seed is no longer deterministic; the first at ${world.turnstile.untimelyAt ?? '?'}`,
    );
  return result;
}

interface Parts {
  world: World;
  random: Random;
  ledger: ApiLedger;
  result: ScenarioResult;
  mode: ScenarioMode;
  kubelets: Kubelets;
  theme: Theme;
  /** The theme's view of this run, its own state included: made once, handed to every step. */
  themeCtx: ThemeContext;
  /** The mass-detach window across this run's steps. */
  windowJudge: MassDetachWindowJudge;
}

/** Offsets the theme's stream from the scenario's, so scripting a step never shifts the scenario's draws. */
const THEME_STREAM = 1_000_003;

const NOTHING_ARMED = { stop: () => undefined, note: () => undefined };

async function playStep(parts: Parts, cluster: FaultCluster, step: number): Promise<void> {
  const { world, random, ledger, result, mode, kubelets } = parts;
  const oracle = mode.oracle;
  forgetGonePods(world, cluster);
  const { themeCtx } = parts;
  const script: ScriptedStep = parts.theme.step?.(step, themeCtx) ?? {};
  const drawnChange: Change = pickChange(cluster, random);
  const changes = script.changes ?? [drawnChange];
  for (const change of changes) applyChange(world, cluster, random, change);
  mode.act();
  const prepared = script.prepare === undefined ? undefined : await script.prepare(themeCtx);
  // Everything is drawn, scripted or not, so a script never shifts the draws of later steps.
  const drawn = { faults: pickFaults(random, world.mode), passes: pickPasses(cluster, random), restart: pickRestart(random) };
  const drawnAdvance = random.pick(ADVANCES);
  const kcmRound = pickKcmRound(world, random);
  const faults = script.faults ?? drawn.faults;
  const passes = script.passes ?? drawn.passes;
  const restart = 'restart' in script ? script.restart : drawn.restart;
  const advance = script.advance ?? drawnAdvance;
  const changed = changes.filter((c) => c.kind !== 'none');
  const label = `step ${step}: ${changed.length === 0 ? 'no change' : changed.map((c) => JSON.stringify(c)).join(', ')}; faults [${faults.map(describeFault).join(', ')}]; passes [${passes.map(describePass).join(', ')}]; then +${advance / 1000}s`;
  if (process.env.DEBUG_PASSES) console.log(label);
  const before = oracle.beginStep(label);
  const startedAt = world.clock.now();
  const stored = massDetachJudged(world, passes, faults, script.then?.passes ?? [])
    ? storedAttachments(await world.storeItems())
    : undefined;
  ledger.drain();
  for (const fault of faults) inject(world, fault);
  const armed = armRestart(world, cluster, random, { kubelets, oracle }, restart);
  const kcmArmed = armKcmRound(world, cluster, random, kubelets, kcmRound);
  const themeArmed = script.arm?.(themeCtx) ?? NOTHING_ARMED;
  const first = await Promise.all(passes.map((spec) => runPass(world, spec, script.wrapPorts)));
  const then = script.then ? await followUp(parts, cluster, script.then) : { outcomes: [], note: undefined };
  const runs = [...first, ...then.outcomes];
  await world.turnstile.drained(); // a killed pass's requests already sent land, whatever else they lead to
  armed.stop();
  kcmArmed.stop();
  themeArmed.stop();
  clearFaults(world);
  result.trace.push(
    [label, prepared, armed.note(), kcmArmed.note(), themeArmed.note(), then.note].filter((part) => part !== undefined).join('; '),
  );
  result.passes += runs.length;
  result.kills += runs.filter((r) => r.outcome === 'killed').length;
  result.outcomes.push(`step ${step}`, ...runs.map((r) => `  ${r.line}`));
  await check(parts, before, label, stored === undefined ? undefined : { stored, startedAt });
  mode.act();
  world.clock.advance(advance);
  result.steps += 1;
}

/**
 * A theme's second round within the step (an event seconds after the first passes, with EC2 reads
 * still lagging): the cluster changes, the oracle takes note, then the passes run. The theme's own
 * stream draws what the changes need, so the scenario's draws stay as they were.
 */
async function followUp(parts: Parts, cluster: FaultCluster, then: FollowUp): Promise<{ outcomes: PassRun[]; note: string }> {
  await parts.world.turnstile.drained();
  const changes = then.changes();
  for (const change of changes) applyChange(parts.world, cluster, parts.themeCtx.random, change);
  parts.mode.oracle.observe();
  const outcomes = await Promise.all(then.passes.map((spec) => runPass(parts.world, spec)));
  return {
    outcomes,
    note: `then ${changes.map((c) => JSON.stringify(c)).join(', ')}; passes [${then.passes.map(describePass).join(', ')}]`,
  };
}

/**
 * The mass-detach guard is judged over a step whose passes are all full passes (one, or several
 * overlapping: they share one mass-detach window, whose claims live in the store, so together they
 * may detach no more than one of them) and no EC2 read lag (a lagged read counts other attachments
 * than ground truth has): mass-detach.ts says why that is sound. A targeted pass's plan counts only
 * its scope, so a step with one is not judged.
 */
function massDetachJudged(world: World, passes: PassSpec[], faults: Fault[], then: PassSpec[]): boolean {
  const full = (spec: PassSpec) => spec.target === undefined;
  return (
    world.mode === 'controller' &&
    passes.length > 0 &&
    passes.every(full) &&
    then.every(full) &&
    !faults.some((f) => f.kind === 'ec2-read-lag')
  );
}

/** Invariant 3's mass-detach guard over a judged step, and the shared window over the judged steps before it. */
function massDetachChecks(
  parts: Parts,
  before: ReturnType<typeof readTruth>,
  detaches: DetachCall[],
  judged: { stored: StoredAttachment[]; startedAt: number } | undefined,
): Violation[] {
  if (judged === undefined) {
    parts.windowJudge.unjudged();
    return [];
  }
  const facts = { before, stored: judged.stored, detaches, rule: MASS_DETACH_RULE };
  return [...massDetachViolations(facts), ...parts.windowJudge.judge(massDetachFigures(facts), judged.startedAt, parts.world.clock.now())];
}

/** Step-end checks: the mode's over the step's calls, 3's mass-detach guard when judged, and 4 (A4) against the store. */
async function check(
  parts: Parts,
  before: ReturnType<typeof readTruth>,
  label: string,
  judged?: { stored: StoredAttachment[]; startedAt: number },
): Promise<void> {
  const { world, ledger, result, mode } = parts;
  const drained = ledger.drain();
  result.outcomes.push(
    ...drained.mutations.map((m) => `  ${m.action} ${m.volumeId} ${m.instanceId ?? '?'}${m.device ? ` ${m.device}` : ''}`),
  );
  const after = readTruth(world.ec2, world.kube);
  const stepEnd = [...mode.stepEnd(before, after, drained), ...massDetachChecks(parts, before, drained.detaches, judged)];
  const unknown = unknownToStore(after, storeKnows(await world.storeItems()), LEASE_BOUND_MS).map((v) => ({
    ...v,
    invariant: mode.storeInvariant,
  }));
  for (const violation of [...stepEnd, ...unknown]) result.violations.push({ ...violation, step: label });
}

/** Faults over, stuck attachments released, leases and the unmount timeout run out: full passes must converge. */
async function converge(parts: Parts, cluster: FaultCluster): Promise<void> {
  const { world, result, mode, random } = parts;
  unstick(world);
  // A machine that stopped meanwhile is marked NotReady now, as the node lifecycle controller does within seconds, not after the wait.
  clusterGoesOn(world, cluster, random);
  world.clock.advance(16 * MINUTE);
  clusterGoesOn(world, cluster, random);
  mode.act();
  let problems: Violation[] = [];
  for (let round = 1; round <= 8; round++) {
    const label = `convergence pass ${round}`;
    const before = mode.oracle.beginStep(label);
    parts.ledger.drain();
    const run = await runPass(world, {});
    result.outcomes.push(label, `  ${run.line}`);
    result.passes += 1;
    await check(parts, before, label);
    mode.act();
    world.clock.advance(2 * MINUTE);
    clusterGoesOn(world, cluster, random);
    mode.act();
    problems = mode.convergence(readTruth(world.ec2, world.kube));
    if (problems.length === 0) {
      result.converged = true;
      return;
    }
  }
  for (const problem of problems) result.violations.push({ ...problem, step: 'after 8 clean full passes' });
}
