/**
 * One cluster size: seed straight into the sandboxes' stores, then measure through the real
 * adapters and HTTP: the first full pass (takeover, over as many invocations as it takes), a steady-state pass at a sync (verification
 * due) and one between syncs, the plan's CPU, event-to-attach latency and an attach burst.
 */
import { DEFAULT_PAGING } from '../lambda/adapters/kubernetes/paged-list.js';
import { FULL_PASS_SIZE } from '../infra/function-sizes.js';
import { SAFETY_MARGIN_MS } from '../lambda/handlers/middleware.js';
import type { Progress } from '../lambda/cli/progress.js';
import { Actors } from '../sandbox/demo/actors.js';
import { RunningClock } from '../sandbox/clock.js';
import type { DynamoMeter } from '../sandbox/metered-dynamo.js';
import { localDynamoClient } from '../sandbox/dynamodb.js';
import { startLocalStack, type LocalStack } from '../sandbox/local-stack.js';
import { generateCluster } from '../sandbox/generate/cluster.js';
import { Random } from '../sandbox/generate/random.js';
import { seedEc2, seedKube } from '../sandbox/generate/seed.js';
import { measureBurst, type Burst } from './burst.js';
import { startPassChild, type PassChild } from './child-runner.js';
import type { PassAnswer } from './pass-child.js';
import { measureEventLatency, scheduleWithActors, type EventLatency } from './latency.js';
import { measurePlanCpu, type PlanCpu } from './plan-cpu.js';
import { measureCovered } from './covered.js';
import { seedActualState } from './seed-state.js';
import { countScanPages, steadyRows, type CallRow, type ObjectCounts } from './steady.js';

export interface PassFigures {
  wallMs: number;
  /** The controller's own CPU (its process; the sandboxes run in the bench's). */
  cpuMs: number;
  /** The controller process's resident memory before the pass and its high-water mark after it, in MB. */
  rssBeforeMb: number;
  peakRssMb: number;
  /** Added to every request of the three local services during the pass. */
  rttMs: number;
  timedOut: boolean;
  /** Invocations the pass took: more than one only for a takeover that resumed. */
  invocations: number;
  /** Claimed volumes a takeover still had left after its last invocation. */
  takeoverLeft?: number;
  error?: string;
  actions?: number;
  converged?: boolean;
  /** A covered pass (a live watcher covered the cluster), not a complete one. */
  covered?: boolean;
  calls: CallRow[];
  dynamo: DynamoMeter;
}

export interface SizeFigures {
  nodes: number;
  counts: ObjectCounts;
  seedMs: number;
  /** Measured on the sizes asked for; the others start from an actual state seeded straight into DynamoDB. */
  takeover?: PassFigures;
  stateSeedMs?: number;
  steadyAtSync: PassFigures;
  /** The same pass with no latency injected (only when `rttMs` > 0). */
  steadyAtSyncNoRtt?: PassFigures;
  steadyBetweenSyncs: PassFigures;
  /** "After": the pass at a sync while a live watcher covers the cluster, in a fresh process (a cold invocation), with the latency. */
  coveredAtSync?: PassFigures;
  /** The same covered pass again a minute later (the next rolling slice), with no latency injected. */
  coveredAtSyncNoRtt?: PassFigures;
  /** The lists' page size of the passes above. */
  pageSize: number;
  /** The steady pass at a sync (with the latency) again with other list page sizes. */
  otherPageSizes?: { pageSize: number; steadyAtSync: PassFigures }[];
  planCpu?: PlanCpu;
  latency?: EventLatency;
  burst?: Burst;
}

export interface SizeOptions {
  passCapMs: number;
  /** The burst runs at about 4 attaches a second (the shared budget's default): 1,000 need some 250 s. */
  burstCapMs: number;
  /** Measure the takeover pass (seeding the actual state from the cluster) instead of seeding DynamoDB directly. */
  takeover: boolean;
  burst: number;
  latency: boolean;
  /** Milliseconds added to every Kubernetes, EC2 and DynamoDB request of the measured passes. */
  rttMs: number;
  /** List page sizes: the first for every pass, the others for one more pass at a sync each. */
  pageSizes: number[];
  /** The full pass function's memory size: its process gets the heap limits Lambda would give it. */
  memoryMb: number;
  log: (line: string) => void;
  /** Items done / total of the passes' long work (takeover seeding, actions). */
  progress?: Progress;
}

interface PassSetup {
  capMs: number;
  pageSize: number;
  rttMs: number;
  /** Verification is due, so DescribeVolumes belongs to the lower bound. */
  sync: boolean;
  /** False: the pass may be covered (a watcher's facts are in the store); otherwise today's complete pass. */
  complete?: boolean;
  /** A takeover: invocations of the function's budget each, until it is done. */
  takeover?: boolean;
}

export function injectRtt(stage: LocalStack, ms: number): void {
  stage.kube.faults.latency(ms);
  stage.ec2.setLatency('*', ms);
  stage.dynamo.setLatency(ms);
}

/** A full pass's function timeout (infra/function-sizes.ts) less the handler's safety margin: a takeover invocation's budget. */
export const FUNCTION_TIMEOUT_MS = FULL_PASS_SIZE.timeoutSeconds * 1000;
const INVOCATION_BUDGET_MS = FUNCTION_TIMEOUT_MS - SAFETY_MARGIN_MS;
/** A takeover left unfinished after this many invocations is reported as such. */
const MAX_TAKEOVER_INVOCATIONS = 10;

const takingOver = (a: PassAnswer & { timedOut: boolean }) => !a.timedOut && a.error === undefined && (a.takeoverLeft ?? 0) > 0;

/** One pass, or for a takeover one invocation after another (each with the function's budget) until it is done; calls summed over all. */
async function measuredPass(stage: LocalStack, child: PassChild, counts: ObjectCounts, setup: PassSetup): Promise<PassFigures> {
  stage.ledger.drain();
  stage.dynamo.resetMeter();
  injectRtt(stage, setup.rttMs);
  const answers: (PassAnswer & { timedOut: boolean })[] = [];
  const capMs = setup.takeover === true ? INVOCATION_BUDGET_MS : setup.capMs;
  try {
    const complete = setup.complete !== false;
    do answers.push(await child.run({ capMs, clockOffsetMs: stage.clock.now() - Date.now(), complete }));
    while (
      setup.takeover === true &&
      answers.length < MAX_TAKEOVER_INVOCATIONS &&
      takingOver(answers[answers.length - 1] as PassAnswer & { timedOut: boolean })
    );
  } finally {
    injectRtt(stage, 0);
  }
  const answer = answers[answers.length - 1] as PassAnswer & { timedOut: boolean };
  const drained = stage.ledger.drain();
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
  return {
    wallMs: answers.reduce((n, a) => n + a.wallMs, 0),
    cpuMs: answers.reduce((n, a) => n + a.cpuMs, 0),
    rssBeforeMb: mb((answers[0] as PassAnswer).rssBefore),
    peakRssMb: mb(Math.max(...answers.map((a) => a.peakRss))),
    rttMs: setup.rttMs,
    timedOut: answer.timedOut,
    invocations: answers.length,
    ...(answer.error ? { error: answer.error } : {}),
    ...(answer.takeoverLeft ? { takeoverLeft: answer.takeoverLeft } : {}),
    ...(answer.actions === undefined ? {} : { actions: answer.actions, converged: answer.converged ?? false }),
    ...(answer.covered === true ? { covered: true } : {}),
    calls: steadyRows(counts, drained, stage.dynamo.meter, setup.sync, setup.pageSize),
    dynamo: { ...stage.dynamo.meter, calls: { ...stage.dynamo.meter.calls } },
  };
}

export async function measureSize(nodes: number, options: SizeOptions): Promise<SizeFigures> {
  const clock = new RunningClock(1);
  const progress = options.progress === undefined ? {} : { controller: { progress: options.progress } };
  const stage = await startLocalStack({ clock, tableName: `bench-${nodes}`, clusterName: 'bench', ...progress });
  let stopChild = () => undefined as void;
  try {
    const cluster = generateCluster({ seed: nodes, nodes, volumesPerNode: 4, podsPerNode: 10 });
    const seeding = performance.now();
    seedEc2(stage.ec2.world, cluster, 'bench');
    seedKube(stage.kube, cluster);
    const seedMs = performance.now() - seeding;
    const counts: ObjectCounts = {
      nodes: cluster.nodes.length,
      pods: cluster.pods.length,
      pvcs: cluster.volumes.length,
      pvs: cluster.volumes.length,
      volumeAttachments: cluster.attached.length,
      volumes: new Set(cluster.attached.map((a) => a.volumeId)).size,
      scanPages: 0,
    };
    options.log(`  ${nodes} nodes: seeded ${counts.pods} pods, ${counts.pvs} volumes in ${(seedMs / 1000).toFixed(1)} s`);
    const handlers = stage.handlers();
    const [pageSize = DEFAULT_PAGING.pageSize, ...otherPageSizes] = options.pageSizes;
    const child = await startPassChild({ ...stage.env, BENCH_LIST_PAGE_SIZE: String(pageSize) }, options.memoryMb);
    stopChild = () => child.stop();
    const setup = { capMs: options.passCapMs, pageSize };
    const pass = (sync: boolean, rttMs = options.rttMs, takeover = false) =>
      measuredPass(stage, child, counts, { ...setup, rttMs, sync, takeover });
    const start: Pick<SizeFigures, 'takeover' | 'stateSeedMs'> = {};
    if (options.takeover) {
      start.takeover = await pass(true, options.rttMs, true);
      const t = start.takeover;
      options.log(
        `  takeover ${(t.wallMs / 1000).toFixed(1)} s in ${t.invocations} invocation(s), peak ${t.peakRssMb} MB${t.timedOut ? ' (cap reached)' : ''}${t.takeoverLeft ? `, ${t.takeoverLeft} volumes left` : ''}`,
      );
    } else {
      const seeding = performance.now();
      const client = localDynamoClient(stage.dynamo.endpoint);
      await seedActualState(stage.controller.ports.store, { client, tableName: stage.tableName }, cluster, clock.now()).finally(() =>
        client.destroy(),
      );
      start.stateSeedMs = performance.now() - seeding;
      options.log(`  actual state seeded into DynamoDB in ${(start.stateSeedMs / 1000).toFixed(1)} s`);
    }
    counts.scanPages = await countScanPages(stage.dynamo.endpoint, stage.env.TABLE_NAME ?? '');
    clock.advance(61_000);
    const steadyAtSync = await pass(true);
    const steadyBetweenSyncs = await pass(false);
    const figures: SizeFigures = { nodes, counts, seedMs, ...start, steadyAtSync, steadyBetweenSyncs, pageSize };
    if (options.rttMs > 0) {
      clock.advance(61_000);
      figures.steadyAtSyncNoRtt = await pass(true, 0);
    }
    const secs = (p: PassFigures | undefined) =>
      p ? `${(p.wallMs / 1000).toFixed(1)} s (CPU ${(p.cpuMs / 1000).toFixed(1)} s, peak ${p.peakRssMb} MB)` : '–';
    options.log(
      `  steady full pass at a sync ${secs(steadyAtSync)} with ${options.rttMs} ms per request, ${secs(figures.steadyAtSyncNoRtt)} without; between syncs ${secs(steadyBetweenSyncs)}`,
    );
    child.stop();
    figures.otherPageSizes = [];
    for (const size of otherPageSizes) {
      const other = await startPassChild({ ...stage.env, BENCH_LIST_PAGE_SIZE: String(size) }, options.memoryMb);
      stopChild = () => other.stop();
      clock.advance(61_000);
      const measured = await measuredPass(stage, other, counts, { ...setup, pageSize: size, rttMs: options.rttMs, sync: true });
      other.stop();
      figures.otherPageSizes.push({ pageSize: size, steadyAtSync: measured });
      options.log(`  page size ${size}: steady full pass at a sync ${secs(measured)} with ${options.rttMs} ms per request`);
    }
    const covering = { env: { ...stage.env, BENCH_LIST_PAGE_SIZE: String(pageSize) }, memoryMb: options.memoryMb, rttMs: options.rttMs };
    Object.assign(
      figures,
      await measureCovered(stage, covering, (next, rttMs) =>
        measuredPass(stage, next, counts, { ...setup, rttMs, sync: true, complete: false }),
      ),
    );
    options.log(
      `  covered pass at a sync (a watcher covers) ${secs(figures.coveredAtSync)} with ${options.rttMs} ms per request, ${secs(figures.coveredAtSyncNoRtt)} without`,
    );
    figures.planCpu = await measurePlanCpu(stage.controller.ports, clock.now());
    const actors = new Actors(stage, cluster, new Random(nodes + 1));
    if (options.latency) figures.latency = await measureEventLatency(stage, handlers, scheduleWithActors(actors));
    if (options.burst > 0) {
      options.log(`  burst of ${options.burst} attaches…`);
      figures.burst = await measureBurst(stage, actors, options.burst, options.burstCapMs);
    }
    return figures;
  } finally {
    stopChild();
    await stage.stop();
  }
}
