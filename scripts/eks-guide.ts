/**
 * `npm run eks-guide`: follows docs/eks.md literally in the sandbox. Every command block the guide
 * marks `eks-guide` is read from the document, in order, and each command is carried out against the
 * local stack, with a simulated kcm, kubelets and csi-attacher sidecar, while a workload keeps
 * asking for attaches and detaches and our scheduled pass runs every minute (each in a fresh
 * execution environment with the settings the last `cdk deploy` gave the functions). A command the
 * script cannot carry out fails the run, so the guide cannot say what the test does not do.
 *
 * The oracle (sandbox/oracle/attacher/writers.ts) records every AttachVolume, DetachVolume and
 * VolumeAttachment write with its writer and the Lease's holder at that instant: there must never
 * be a write by anyone but the holder, whatever step of the guide it falls in.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { controllerEnvironment } from '../infra/environment.js';
import { readSettings, type ContextKey } from '../infra/settings.js';
import { runMain, type Io } from '../lambda/cli/run.js';
import { RunningClock } from '../sandbox/clock.js';
import { lambdaContext } from '../sandbox/events.js';
import { Kubelets } from '../sandbox/kubelets.js';
import { SidecarElector, SIDECAR_LEASE } from '../sandbox/lease-election.js';
import { KubernetesLeaseLock } from '../lambda/adapters/kubernetes/lease-lock.js';
import { createKubeClients } from '../lambda/adapters/kubernetes/clients.js';
import { kubeConfigFromFile } from '../lambda/adapters/kubernetes/kubeconfig.js';
import { WriterOracle, type Write } from '../sandbox/oracle/attacher/writers.js';
import { createSidecar, type Sidecar } from '../sandbox/sidecar/sidecar.js';
import { startWorld, type World, type WorldVolume } from '../sandbox/world.js';

const S = 1000;
/** The sidecar's retry period: the story's step. */
const STEP_MS = 5 * S;
/** EventBridge Scheduler's rate(1 minute). */
const SCHEDULE_MS = 60 * S;
/** Cluster life after each command of the guide, so every step sees attaches and detaches. */
const LIFE_AFTER_COMMAND_MS = 60 * S;
/** A valid base64 PEM in place of the guide's `LS0tLS1CRUdJTi...` placeholder. */
const PLACEHOLDER_CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIBZ3VpZGU=\n-----END CERTIFICATE-----\n').toString('base64');

export interface GuideCommand {
  /** One shell command, its continuation lines joined. */
  text: string;
  /** The heading the block is under: the guide's step, for the oracle's phases. */
  section: string;
}

/** The commands of every ```sh eks-guide block, in order, each with the heading it is under. */
export function guideCommands(markdown: string): GuideCommand[] {
  const commands: GuideCommand[] = [];
  let section = '';
  let block: string[] | undefined;
  for (const line of markdown.split('\n')) {
    if (block === undefined) {
      if (/^#{2,3} /.test(line)) section = line.replace(/^#+ /, '');
      if (/^```sh eks-guide\s*$/.test(line)) block = [];
      continue;
    }
    if (line.startsWith('```')) {
      commands.push(...joinContinuations(block).map((text) => ({ text, section })));
      block = undefined;
      continue;
    }
    block.push(line);
  }
  if (block !== undefined) throw new Error('docs/eks.md: an eks-guide block is not closed');
  return commands;
}

function joinContinuations(lines: string[]): string[] {
  const commands: string[] = [];
  let current = '';
  for (const line of lines) {
    const trimmed = line.trim();
    if (current === '' && (trimmed === '' || trimmed.startsWith('#'))) continue;
    current += current === '' ? trimmed : ` ${trimmed}`;
    if (current.endsWith('\\')) current = current.slice(0, -1).trimEnd();
    else {
      commands.push(current);
      current = '';
    }
  }
  if (current !== '') commands.push(current);
  return commands;
}

/** `-c key=value` pairs of a `cdk deploy`, the guide's placeholders made valid. */
export function deployContext(command: string): Record<string, string> {
  const context: Record<string, string> = {};
  for (const [, key, value] of command.matchAll(/-c ([A-Za-z]+)=(\S+)/g)) context[key!] = value!;
  if (context.certificateAuthority?.endsWith('...')) context.certificateAuthority = PLACEHOLDER_CA;
  return context;
}

/** `export K=V …`: plain values, and a stack output read with `aws cloudformation describe-stacks`. */
export function exportedVariables(command: string, outputs: Record<string, string>): Record<string, string> {
  const variables: Record<string, string> = {};
  const pattern = /([A-Z_][A-Z0-9_]*)=("\$\(aws cloudformation describe-stacks .*?OutputKey=='(\w+)'.*?\)"|\S+)/g;
  for (const [, name, value, output] of command.replace(/^export /, '').matchAll(pattern)) {
    if (output !== undefined) {
      const local = outputs[output];
      if (local === undefined) throw new Error(`the guide reads stack output ${output}, which the sandbox does not have`);
      variables[name!] = local;
    } else variables[name!] = value!;
  }
  return variables;
}

export interface GuideStep {
  command: string;
  section: string;
  /** What the command printed, or what the script did for it. */
  output: string;
}

export interface GuideRun {
  steps: GuideStep[];
  writes: Write[];
  secondWriters: Write[];
  byPhase: ReturnType<WriterOracle['byPhase']>;
  /** Holder identities the guide's `get lease` commands read, in order. */
  holdersRead: string[];
  identity: string;
}

interface Story {
  world: World;
  clock: RunningClock;
  oracle: WriterOracle;
  kubelets: Kubelets;
  sidecar: { running: boolean; generation: number; loop?: Sidecar; close?: () => Promise<void> };
  /** The functions' environment as the last deploy left it (undefined before the first). */
  deployed?: Record<string, string>;
  cliEnv: Record<string, string>;
  lastScheduled: number;
  churn: number;
  pods: { name: string; volume: WorldVolume }[];
  holdersRead: string[];
  log: (line: string) => void;
}

/** The csi-attacher sidecar as a new controller pod would run it: a fresh elector with its own client. */
function startSidecar(story: Story): void {
  const { world, clock, sidecar } = story;
  sidecar.generation += 1;
  const clients = createKubeClients(kubeConfigFromFile(world.kube.kubeconfigPath), { clock });
  const elector = new SidecarElector(
    new KubernetesLeaseLock(clients.coordination, SIDECAR_LEASE),
    `ebs-csi-controller-6f7d9c8b5-${sidecar.generation}`,
    () => clock.now(),
  );
  sidecar.loop = createSidecar({ kube: story.oracle.sidecarKube(), ec2: world.ec2Client, elector });
  sidecar.close = () => clients.close();
  sidecar.running = true;
}

async function stopSidecar(story: Story): Promise<void> {
  story.sidecar.running = false;
  await story.sidecar.close?.();
  delete story.sidecar.loop;
}

/** The workload: a pod comes, a pod goes, one every other step. */
async function churn(story: Story): Promise<void> {
  story.churn += 1;
  const { world, pods } = story;
  if (story.churn % 2 === 0 && pods.length > 2) {
    const gone = pods.shift()!;
    world.kube.kubelet.deletePod('default', gone.name);
    return;
  }
  const name = `app-${story.churn}`;
  const volume = await world.createVolume({ name: `data-${name}` });
  world.addPod(name, volume, world.nodes[story.churn % world.nodes.length]!.name);
  pods.push({ name, volume });
}

/** Cluster life for `ms` of sandbox time: kcm, kubelets, the sidecar while it runs, our schedule, the workload. */
async function live(story: Story, ms: number): Promise<void> {
  const { world, clock, oracle } = story;
  for (let t = 0; t < ms; t += STEP_MS) {
    world.kcm!.step();
    story.kubelets.run();
    if (story.sidecar.running && story.sidecar.loop) {
      oracle.running = 'sidecar';
      await story.sidecar.loop.step();
    }
    if (story.deployed !== undefined && clock.now() - story.lastScheduled >= SCHEDULE_MS) {
      story.lastScheduled = clock.now();
      oracle.running = 'controller';
      // Every scheduled pass is a cold execution environment with the deployed settings.
      await world.handlers(world.invocation({}, story.deployed)).scheduled({ pass: 'full' }, lambdaContext());
    }
    oracle.running = undefined;
    if ((t / STEP_MS) % 4 === 0) await churn(story);
    clock.advance(STEP_MS);
  }
}

async function cli(story: Story, args: string[]): Promise<string> {
  const out: string[] = [];
  const io: Io = { out: (t) => out.push(t), err: (t) => out.push(t) };
  // The operator's shell: the guide's exports, with the sandbox's endpoints, credentials and kubeconfig.
  const connection = Object.fromEntries(
    Object.entries(story.world.env).filter(([name]) => /^(AWS_|KUBECONFIG|TABLE_NAME|POWERTOOLS_LOG_LEVEL)/.test(name)),
  );
  story.oracle.running = 'controller';
  try {
    const code = await runMain(args, { ...story.cliEnv, ...connection }, io, { clock: story.clock });
    return `${out.join('\n')}\n(exit ${code})`;
  } finally {
    story.oracle.running = undefined;
  }
}

function applyManifest(path: string): string {
  const kinds = parseAllDocuments(readFileSync(path, 'utf8')).map((doc) => (doc.toJSON() as { kind?: string } | null)?.kind ?? '?');
  return `${path}: ${kinds.join(', ')} (the sandbox authorizes every client; test/kubernetes/*rbac*.test.ts check what it allows)`;
}

/** The oracle's phase of a command: the command itself, shortened (deploy, shadow, fence, handback, …). */
export function phaseOf(command: string): string {
  if (command.startsWith('npx cdk deploy ')) return `cdk deploy${/leaseFence=on/.test(command) ? ' (leaseFence=on)' : ''}`;
  if (command.startsWith('export ')) return 'export';
  return command.length > 60 ? `${command.slice(0, 57)}...` : command;
}

/** One command of the guide, carried out; what it printed. */
async function carryOut(story: Story, command: string): Promise<string> {
  const words = command.split(/\s+/);
  if (command.startsWith('npx cdk deploy ')) {
    const context = deployContext(command);
    const settings = readSettings((key: ContextKey) => context[key]);
    story.deployed = { ...controllerEnvironment(settings, story.world.tableName), TABLE_NAME: story.world.tableName };
    return `deployed: WRITES=${story.deployed.WRITES} LEASE_FENCE=${story.deployed.LEASE_FENCE ?? 'off'}`;
  }
  if (command.startsWith('kubectl apply -f ')) return applyManifest(words[3]!);
  if (command.startsWith('aws eks create-access-entry ')) return 'no access entries in the sandbox: the functions use its one client';
  if (command.startsWith('export ')) {
    Object.assign(story.cliEnv, exportedVariables(command, { StateTableName: story.world.tableName }));
    return `exported ${Object.keys(story.cliEnv).join(', ')}`;
  }
  if (words[0] === 'ebs-attach-detach') return cli(story, words.slice(1));
  if (/^kubectl -n kube-system scale deployment ebs-csi-controller --replicas=\d+$/.test(command)) {
    const replicas = Number(/--replicas=(\d+)/.exec(command)![1]);
    if (replicas === 0) await stopSidecar(story);
    else if (!story.sidecar.running) startSidecar(story);
    return `ebs-csi-controller at ${replicas}`;
  }
  if (/^sleep \d+$/.test(command)) {
    await live(story, Number(words[1]) * S);
    return `${words[1]} s of cluster life`;
  }
  if (command.startsWith(`kubectl -n kube-system get lease ${SIDECAR_LEASE.name} `)) {
    const lease = story.world.kube.get('Lease', SIDECAR_LEASE.namespace, SIDECAR_LEASE.name) as
      { spec: { holderIdentity?: string; renewTime?: string } } | undefined;
    story.holdersRead.push(lease?.spec.holderIdentity ?? '');
    return `${lease?.spec.holderIdentity ?? ''} ${lease?.spec.renewTime ?? ''}`;
  }
  throw new Error(`docs/eks.md has a command the guide's script cannot carry out: ${command}`);
}

export async function runEksGuide(options: { doc?: string; log?: (line: string) => void } = {}): Promise<GuideRun> {
  const commands = guideCommands(readFileSync(options.doc ?? new URL('../docs/eks.md', import.meta.url), 'utf8'));
  const clock = new RunningClock();
  const world = await startWorld({ nodes: 3, clock, mode: 'attacher', simulateKcm: true, sidecar: true });
  const identity = 'ebs-attach-detach/prod';
  const oracle = new WriterOracle(
    world.kube,
    world.ec2,
    SIDECAR_LEASE,
    (holder) => (holder === identity ? 'controller' : holder.startsWith('ebs-csi-controller-') ? 'sidecar' : undefined),
    () => clock.now(),
  );
  const story: Story = {
    world,
    clock,
    oracle,
    kubelets: new Kubelets(world.kube, world.ec2),
    sidecar: { running: false, generation: 0 },
    cliEnv: {},
    lastScheduled: 0,
    churn: 0,
    pods: [],
    holdersRead: [],
    log: options.log ?? (() => undefined),
  };
  const steps: GuideStep[] = [];
  try {
    // Before the guide: the EBS CSI add-on runs its sidecar, which leads and attaches the workload's volumes.
    startSidecar(story);
    await live(story, 60 * S);
    for (const { text, section } of commands) {
      oracle.enter(phaseOf(text));
      const output = await carryOut(story, text);
      story.log(`$ ${text}\n${output}`);
      steps.push({ command: text, section, output });
      if (!text.startsWith('sleep ')) await live(story, LIFE_AFTER_COMMAND_MS);
    }
    return {
      steps,
      writes: oracle.writes,
      secondWriters: oracle.secondWriters(),
      byPhase: oracle.byPhase(),
      holdersRead: story.holdersRead,
      identity,
    };
  } finally {
    oracle.stop();
    await stopSidecar(story);
    await world.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // EMF metrics mean nothing here; the controller's logs are off (POWERTOOLS_LOG_LEVEL=SILENT in the stack).
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  const run = await runEksGuide({ log: (line) => console.error(line) });
  console.error('\nwrites by phase (controller / sidecar):');
  for (const row of run.byPhase) console.error(`  ${row.phase}: ${row.controller} / ${row.sidecar}`);
  console.error(`writes by someone not holding the Lease: ${run.secondWriters.length}`);
  for (const write of run.secondWriters) console.error(`  ${JSON.stringify(write)}`);
  process.exitCode = run.secondWriters.length === 0 ? 0 : 1;
}
