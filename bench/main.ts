/**
 * `npm run bench [-- --sizes 100,1000,5000 --burst 1000 --pass-cap 240 --takeover-max 100 --no-bundles]`: the
 * benchmark. Writes results/bench-<time>.md and .json (and results/latest.*), prints a table.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { FULL_PASS_SIZE } from '../infra/function-sizes.js';
import { progressReporter } from '../lambda/cli/progress.js';
import { SETTING_DEFAULTS } from '../lambda/config.js';
import { measureAttacherEventLatency } from './attacher-latency.js';
import { measureBundles } from './bundles.js';
import { measureEnvironmentBurst } from './burst-environments.js';
import { measureDeadInstances } from './dead-instance.js';
import { goalRows } from './goals.js';
import { runSideBySide } from './side-by-side/main.js';
import { traceChurn } from './side-by-side/churn-trace.js';
import { traceAttachPath } from './side-by-side/trace.js';
import { traceCoveredPass } from './covered-trace.js';
import { measureCacheSize } from './watcher-cache-size.js';
import { measureWatcherSize } from './watcher-size.js';
import { WATCHER_SIZE } from '../infra/function-sizes.js';
import type { BenchFigures } from './figures.js';
import { markdown, shortTable } from './report.js';
import { measureSize } from './size.js';

// Metrics in embedded metric format mean nothing outside Lambda.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100,1000,5000' },
    burst: { type: 'string', default: '1000' },
    'pass-cap': { type: 'string', default: '240' },
    'burst-cap': { type: 'string', default: '420' },
    'takeover-max': { type: 'string', default: '100' },
    rtt: { type: 'string', default: '20' },
    memory: { type: 'string', default: String(FULL_PASS_SIZE.memoryMb) },
    'page-sizes': { type: 'string', default: '' },
    'env-burst': { type: 'string', default: '1000' },
    'env-counts': { type: 'string', default: '1,3,5' },
    'env-budget': { type: 'string', default: '' },
    'no-bundles': { type: 'boolean', default: false },
    'no-dead-instance': { type: 'boolean', default: false },
    'no-attacher-latency': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'side-by-side': { type: 'boolean', default: false },
    trace: { type: 'boolean', default: false },
    churn: { type: 'boolean', default: false },
    'cache-size': { type: 'boolean', default: false },
    'covered-trace': { type: 'boolean', default: false },
    nodes: { type: 'string', default: '5000' },
    'pvs-per-node': { type: 'string', default: '25' },
    'watcher-size': { type: 'boolean', default: false },
    'watcher-memory': { type: 'string', default: String(WATCHER_SIZE.memoryMb) },
    changes: { type: 'string', default: '200' },
    pods: { type: 'string', default: '10' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(
    'npm run bench -- [--sizes 100,1000,5000 (none: only the burst across environments)] [--burst 1000 (on the smallest size; 0: none)] [--pass-cap <seconds per pass>] [--burst-cap 420]',
  );
  console.log(
    '                  [--takeover-max 100 (larger sizes start from an actual state seeded into DynamoDB)] [--no-bundles] [--no-dead-instance] [--no-attacher-latency]',
  );
  console.log("                  [--profile (each measured pass's .cpuprofile and .heapprofile under results/profiles/)]");
  console.log(
    `                  [--memory ${FULL_PASS_SIZE.memoryMb} (the full pass function's memory in MB: its process gets the heap limits Lambda gives that size)]`,
  );
  console.log(
    '                  [--rtt 20 (ms added to every Kubernetes, EC2 and DynamoDB request of the measured passes)] [--page-sizes 500,2000 (the first for every pass; each other for one more pass)]',
  );
  console.log(
    "                  [--env-burst 1000 (0: none)] [--env-counts 1,3,5] [--env-budget <rate>/<burst> (AttachVolume; default: the settings' default)]",
  );
  console.log(
    "  or: npm run bench -- --side-by-side [--changes 200] [--pods 10] [--rtt 10] [--trace (the requests from VolumeAttachment to AttachVolume instead; with --churn: where each change's time goes under the churn)]: issue 29's watcher vs csi-attacher sidecar vs today, alone",
  );
  console.log(
    "  or: NODE_OPTIONS=--expose-gc npm run bench -- --cache-size [--nodes 5000] [--pvs-per-node 25]: the attacher watcher's caches' heap at that size",
  );
  console.log(
    "  or: npm run bench -- --covered-trace [--nodes 5000] [--rtt 20]: a covered pass at a sync, request by request (controller's wait vs the local server's time), with and without the latency",
  );
  process.exit(0);
}
if (values['covered-trace']) {
  const rttMs = Number(values.rtt.replace(/ms$/, ''));
  console.log((await traceCoveredPass({ nodes: Number(values.nodes), rttMs, memoryMb: Number(values.memory) })).join('\n'));
  setTimeout(() => process.exit(0), 1_000).unref();
} else if (values['cache-size']) {
  console.log(JSON.stringify(measureCacheSize({ nodes: Number(values.nodes), pvsPerNode: Number(values['pvs-per-node']) }), null, 2));
} else if (values['watcher-size']) {
  const size = await measureWatcherSize({ changes: Number(values.changes), memoryMb: Number(values['watcher-memory']) });
  console.log(JSON.stringify(size, null, 2));
  setTimeout(() => process.exit(0), 1_000).unref();
} else if (values['side-by-side'] && values.trace && values.churn) {
  console.log((await traceChurn(Number(values.changes), Number(values.rtt.replace(/ms$/, '')))).join('\n'));
  setTimeout(() => process.exit(0), 1_000).unref();
} else if (values['side-by-side'] && values.trace) {
  for (const implementation of ['watcher', 'sidecar'] as const)
    console.log((await traceAttachPath(implementation, Number(values.rtt.replace(/ms$/, '')))).join('\n'));
  setTimeout(() => process.exit(0), 1_000).unref();
} else if (values['side-by-side']) {
  await runSideBySide({ changes: Number(values.changes), pods: Number(values.pods), rttMs: Number(values.rtt.replace(/ms$/, '')) });
  setTimeout(() => process.exit(0), 1_000).unref();
} else {
  await runBench();
}

async function runBench(): Promise<void> {
  if (values.profile) {
    process.env.BENCH_PROFILE_DIR = 'results/profiles';
    await mkdir(process.env.BENCH_PROFILE_DIR, { recursive: true });
  }
  const sizes = values.sizes === 'none' ? [] : values.sizes.split(',').map((x) => Number(x.trim()));
  if (sizes.some((n) => !Number.isInteger(n) || n < 3))
    throw new Error(`--sizes must be whole numbers of at least 3, got "${values.sizes}"`);

  const memoryMb = Number(values.memory);
  if (!Number.isInteger(memoryMb) || memoryMb < 128 || memoryMb > 10_240)
    throw new Error(`--memory must be a Lambda memory size in MB (128–10240), got "${values.memory}"`);

  const figures: BenchFigures = {
    startedAt: new Date().toISOString(),
    machine: { cpus: availableParallelism(), node: process.version, loadAverage: loadavg()[0] ?? 0 },
    functionMemoryMb: memoryMb,
    sizes: [],
  };
  const smallest = Math.min(...sizes);
  // Items done / total of the takeover and the bursts: one line in place on a terminal, a line per tenth otherwise.
  const progress = progressReporter({ isTTY: process.stderr.isTTY, write: (text) => process.stderr.write(text) });
  for (const nodes of sizes) {
    console.log(`Size ${nodes}…`);
    figures.sizes.push(
      await measureSize(nodes, {
        passCapMs: Number(values['pass-cap']) * 1000,
        burstCapMs: Number(values['burst-cap']) * 1000,
        takeover: nodes <= Number(values['takeover-max']),
        burst: nodes === smallest ? Number(values.burst) : 0,
        latency: nodes === smallest,
        rttMs: Number(values.rtt.replace(/ms$/, '')),
        pageSizes: values['page-sizes'] === '' ? [] : values['page-sizes'].split(',').map(Number),
        memoryMb,
        log: (line) => console.log(line),
        progress,
      }),
    );
  }
  const envBurst = Number(values['env-burst']);
  if (envBurst > 0) {
    const [rate = SETTING_DEFAULTS.EC2_ATTACH_VOLUME_RATE, burst = SETTING_DEFAULTS.EC2_ATTACH_VOLUME_BURST] = values['env-budget']
      ? values['env-budget'].split('/')
      : [];
    console.log(`Burst of ${envBurst} attaches across environments, budget ${rate}/s, burst ${burst}…`);
    figures.environmentBursts = [];
    for (const environments of values['env-counts'].split(',').map(Number)) {
      figures.environmentBursts.push(
        await measureEnvironmentBurst(environments, {
          size: envBurst,
          capMs: Number(values['burst-cap']) * 1000,
          env: { EC2_ATTACH_VOLUME_RATE: rate, EC2_ATTACH_VOLUME_BURST: burst },
          budget: { ratePerSecond: Number(rate), burst: Number(burst) },
          log: (line) => console.log(line),
        }),
      );
    }
  }
  if (!values['no-attacher-latency']) {
    console.log('Event → AttachVolume in attacher mode…');
    figures.attacherLatency = await measureAttacherEventLatency();
  }
  if (!values['no-dead-instance']) {
    console.log('Dead instance → replacement attached, both modes…');
    figures.deadInstance = await measureDeadInstances((line) => console.log(line));
  }
  if (!values['no-bundles']) {
    console.log('Bundles…');
    figures.bundles = await measureBundles();
  }
  figures.goals = goalRows(figures);
  await mkdir('results', { recursive: true });
  const stamp = figures.startedAt.replace(/[:.]/g, '-');
  await writeFile(`results/bench-${stamp}.md`, markdown(figures));
  await writeFile(`results/bench-${stamp}.json`, JSON.stringify(figures, null, 2));
  await writeFile('results/latest.md', markdown(figures));
  await writeFile('results/latest.json', JSON.stringify(figures, null, 2));
  console.log(['', ...shortTable(figures), '', `Report: results/bench-${stamp}.md (figures: .json)`].join('\n'));
  setTimeout(() => process.exit(0), 1_000).unref();
}
