/**
 * `npm start`: the controller's real Lambda handlers against a local cluster, on a fresh machine
 * with no AWS account. Starts dynalite, the local EC2 and the local Kubernetes API on loopback,
 * seeds a realistic cluster, plays the story chapter by chapter with a live view, checks DESIGN
 * §11's invariants throughout, prints a summary, and stops everything it started.
 */
import { dayOneInAws, DEMO_KMS_KEY } from './story-iam.js';
import { parseArgs } from 'node:util';
import { generateCluster } from '../generate/cluster.js';
import { Random } from '../generate/random.js';
import { seedEc2, seedKube } from '../generate/seed.js';
import { Actors } from './actors.js';
import { RunningClock, SANDBOX_EPOCH } from '../clock.js';
import { startLocalStack, type LocalStack, type LocalStackOptions } from '../local-stack.js';
import { Director } from './director.js';
import { chapterPassed, renderSummary, type ChapterOutcome } from './summary.js';
import { multiAttach, reschedule, scaleUp, takeover } from './story-day.js';
import { instanceTerminated, lambdaDies, nodeGoesQuiet, throttlingStorm } from './story-night.js';
import { ATTACHER_CHAPTERS } from './story-eks.js';
import type { Chapter } from './scene.js';
import { LiveView } from './view.js';

const HELP = `Usage: npm start -- [options]

Plays a day in the life of the EBS attach/detach controller against local stand-ins for
DynamoDB (dynalite), EC2 and the Kubernetes API, calling the real Lambda handlers.

Options:
  --mode <m>    controller (default): we are the attach/detach controller;
                attacher: the EKS story, kcm creates VolumeAttachments and we replace csi-attacher
  --nodes <n>   cluster size in nodes, spread over three zones (default 24, at least 12)
  --seed <n>    seed of the generated cluster and names (default 42): same seed, same cluster
  --speed <x>   story seconds per real second (default 10); "six minutes later" jumps ahead regardless
  --help        this text

Exit status: 0 when every invariant held and every chapter's checks passed, 1 otherwise,
130 when interrupted. Everything started is stopped on exit, on error and on Ctrl-C.`;

type Mode = 'controller' | 'attacher';

interface DemoOptions {
  mode: Mode;
  nodes: number;
  seed: number;
  speed: number;
}

export function parseOptions(argv: string[]): DemoOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      mode: { type: 'string', default: 'controller' },
      nodes: { type: 'string', default: '24' },
      seed: { type: 'string', default: '42' },
      speed: { type: 'string', default: '10' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return 'help';
  const number = (name: string, raw: string, min: number) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be a whole number of at least ${min}, got "${raw}"`);
    return value;
  };
  if (values.mode !== 'controller' && values.mode !== 'attacher')
    throw new Error(`--mode must be controller or attacher, got "${values.mode}"`);
  return {
    mode: values.mode,
    nodes: number('nodes', values.nodes, 12),
    seed: number('seed', values.seed, 0),
    speed: number('speed', values.speed, 1),
  };
}

interface Story {
  chapters: Chapter[];
  cluster: Omit<Parameters<typeof generateCluster>[0], 'seed' | 'nodes'>;
  stack: Pick<LocalStackOptions, 'mode' | 'simulateKcm' | 'env' | 'iam' | 'sidecar'>;
}

const STORIES: Record<Mode, Story> = {
  controller: {
    chapters: [takeover, scaleUp, reschedule, multiAttach, dayOneInAws, nodeGoesQuiet, instanceTerminated, throttlingStorm, lambdaDies],
    cluster: { pendingPods: 3, unscheduledPods: 1 },
    // The stack's role policy, with a customer-managed key of encrypted volumes granted.
    stack: { iam: { kmsKeyArns: [DEMO_KMS_KEY] } },
  },
  // A cluster of stateless pods; the story brings the volumes (simulated kcm rebuilds no state it did not see happen).
  attacher: {
    chapters: ATTACHER_CHAPTERS,
    cluster: { volumesPerNode: 0, podsPerNode: 6, multiAttachReaders: 0 },
    stack: { mode: 'attacher', simulateKcm: true, sidecar: true, env: { LEASE_FENCE: 'on' }, iam: { kmsKeyArns: [DEMO_KMS_KEY] } },
  },
};

async function play(stage: LocalStack, options: DemoOptions): Promise<boolean> {
  const { chapters: CHAPTERS, cluster: shape } = STORIES[options.mode];
  const cluster = generateCluster({ seed: options.seed, nodes: options.nodes, ...shape });
  seedEc2(stage.ec2.world, cluster);
  seedKube(stage.kube, cluster);
  const director = new Director(stage);
  const view = new LiveView(director, { seed: options.seed, nodes: options.nodes, speed: options.speed });
  director.onInvoked((invocation) => view.invoked(invocation));
  director.onKcmStep((report) => view.kcmStep(report));
  const actors = new Actors(stage, cluster, new Random(options.seed + 1));
  const storyStart = stage.clock.now();
  const realStart = Date.now();
  view.say(
    `Seeded ${cluster.nodes.length} nodes in ${cluster.zones.length} zones, ${cluster.pods.length} pods, ${cluster.volumes.length} EBS volumes (${cluster.attached.length} attachments).`,
  );
  const outcomes: ChapterOutcome[] = [];
  for (const [index, chapter] of CHAPTERS.entries()) {
    view.chapter(index + 1, CHAPTERS.length + 1, chapter.title);
    try {
      const checks = await chapter.play({ director, actors, say: (line) => view.say(line) });
      view.checked(checks);
      outcomes.push({ title: chapter.title, checks });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      view.say(`chapter failed: ${message}`);
      outcomes.push({ title: chapter.title, checks: [], error: message });
    }
  }
  const finale = 'Settling: every pod has its volumes, nothing else is attached';
  view.chapter(CHAPTERS.length + 1, CHAPTERS.length + 1, finale);
  const settled = await director.settle(4, 30_000);
  const convergence = director.finalConvergence();
  const converged = [
    {
      name: 'desired equals actual in EC2; node status and VolumeAttachments agree',
      ok: settled && convergence.length === 0,
      detail: convergence[0]?.message ?? 'did not settle',
    },
  ];
  view.checked(converged);
  outcomes.push({ title: finale, checks: converged });
  view.close();
  for (const line of renderSummary(director, outcomes, { storyMs: stage.clock.now() - storyStart, realMs: Date.now() - realStart }))
    console.log(line);
  const ok = director.violations.length === 0 && outcomes.every(chapterPassed) && settled;
  console.log(ok ? '\nResult: every invariant held and every check passed (exit 0).' : '\nResult: FAILED (exit 1).');
  return ok;
}

async function main(): Promise<number> {
  let options: DemoOptions | 'help';
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    return 2;
  }
  if (options === 'help') {
    console.log(HELP);
    return 0;
  }
  console.log(
    `Starting dynalite, the local EC2 and the local Kubernetes API on loopback (${options.mode} mode, seed ${options.seed}, ${options.nodes} nodes, ×${options.speed})…`,
  );
  const stage = await startLocalStack({
    clock: new RunningClock(options.speed, SANDBOX_EPOCH),
    clusterName: 'demo',
    controller: { ec2Wait: { initialDelayMs: 100 } },
    ...STORIES[options.mode].stack,
  });
  const interrupted = new Promise<number>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve(130));
  });
  try {
    return await Promise.race([play(stage, options).then((ok) => (ok ? 0 : 1)), interrupted]);
  } catch (error) {
    console.error('demo failed:', error);
    return 1;
  } finally {
    await stage.stop();
  }
}

// Metrics in embedded metric format mean nothing outside Lambda and would interleave with the story.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.exitCode = await main();
// Whatever the story left pending (a killed child, an abandoned wait) must not keep the process alive.
setTimeout(() => process.exit(), 1_000).unref();
