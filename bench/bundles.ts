/**
 * Bundle size and cold-start initialisation of each Lambda handler, before and after in one run:
 * the bundle the stack ships (infra/handler-bundle.ts and its plugins) beside the plain esbuild
 * bundle of the same entry with the same options (what NodejsFunction built) and, for the first
 * handler, the shipped build less each plugin in turn, each compared with an empty handler's
 * bundle. Init is timed as wall time
 * and as the process's CPU time: on a machine shared with other work the wall time grows with the
 * load, the CPU time much less, so both are reported with the load average. The two builds of a
 * handler are imported in turn, run by run, so a change in the load falls on both.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile, readFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { HANDLER_ENTRIES, REPO_ROOT } from '../infra/contracts.js';
import { bundleHandler, SHIPPED_PLUGINS } from '../infra/handler-bundle.js';

const run = promisify(execFile);

/**
 * `shipped`: the stack's build; `plain`: the same entry and options without its plugins;
 * `without <plugin>`: the stack's build but that plugin (the first handler only), so what each
 * plugin saves is measured in the same run.
 */
type BundleBuild = 'shipped' | 'plain' | `without ${string}`;

export interface BundleFigures {
  name: string;
  build: BundleBuild;
  bytes: number;
  gzipBytes: number;
  /** Median milliseconds to import the bundle in a fresh Node process (Lambda's init phase, minus the runtime). */
  initMs: number;
  /** Median CPU milliseconds (user + system) of that import. */
  initCpuMs: number;
  /** The 1-minute load average when the imports ran. */
  loadAverage: number;
  sizeRatio: number;
  initRatio: number;
}

/** Environment a handler's composition root validates at init; nothing is contacted during import. */
const INIT_ENV = {
  TABLE_NAME: 'bench-volumes',
  CLUSTER_NAME: 'bench',
  CLUSTER_ENDPOINT: 'https://127.0.0.1:1',
  AWS_REGION: 'us-east-1',
  CLUSTER_CA: 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJiZW5jaAotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg==',
  AWS_ACCESS_KEY_ID: 'AKIDBENCH',
  AWS_SECRET_ACCESS_KEY: 'bench-secret',
  POWERTOOLS_LOG_LEVEL: 'ERROR',
};

const IMPORT_TIMER = [
  'const c = process.cpuUsage(); const t = performance.now();',
  'await import(process.argv[1]);',
  'const u = process.cpuUsage(c); console.log(performance.now() - t, (u.user + u.system) / 1000);',
].join(' ');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

interface Built {
  name: string;
  build: BundleBuild;
  file: string;
  wall: number[];
  cpu: number[];
}

/** One import in a fresh process, as Lambda starts the functions: without `--enable-source-maps` (infra/bundling.ts says why). */
async function importOnce(bundle: Built): Promise<void> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', IMPORT_TIMER, bundle.file], {
    env: { ...INIT_ENV, PATH: process.env.PATH ?? '' },
  });
  const [ms, cpuMs] = stdout.trim().split(' ').map(Number);
  bundle.wall.push(ms as number);
  bundle.cpu.push(cpuMs as number);
}

async function build(root: string, name: string, entry: string, kind: BundleBuild): Promise<Built> {
  const dir = await mkdtemp(join(root, `${name}-${kind.replace(/\W+/g, '-')}-`));
  const without = kind.startsWith('without ') ? kind.slice('without '.length) : undefined;
  const options = { withPlugins: kind !== 'plain', ...(without === undefined ? {} : { without }) };
  return { name, build: kind, file: await bundleHandler(entry, dir, options), wall: [], cpu: [] };
}

/** Imports each of `bundles` `runs` times, in turn, and returns their figures. */
async function measure(bundles: Built[], runs: number): Promise<Omit<BundleFigures, 'sizeRatio' | 'initRatio'>[]> {
  for (let i = 0; i < runs; i++) for (const bundle of bundles) await importOnce(bundle);
  const loadAverage = loadavg()[0] ?? 0;
  return Promise.all(
    bundles.map(async (b) => ({
      name: b.name,
      build: b.build,
      bytes: (await stat(b.file)).size,
      gzipBytes: gzipSync(await readFile(b.file)).length,
      initMs: median(b.wall),
      initCpuMs: median(b.cpu),
      loadAverage,
    })),
  );
}

export async function measureBundles(runs = 5): Promise<BundleFigures[]> {
  const root = await mkdtemp(join(tmpdir(), 'bench-bundles-'));
  try {
    const empty = join(root, 'empty-handler.mjs');
    await writeFile(empty, 'export const handler = async () => ({});\n');
    const [baseline] = await measure([await build(root, 'empty', empty, 'shipped')], runs);
    if (baseline === undefined) throw new Error('no baseline');
    const figures = [baseline];
    for (const [index, [name, entry]] of Object.entries(HANDLER_ENTRIES).entries()) {
      const path = join(REPO_ROOT, entry);
      const kinds: BundleBuild[] = ['plain', 'shipped', ...(index === 0 ? SHIPPED_PLUGINS.map((p) => `without ${p.name}` as const) : [])];
      const builds = await Promise.all(kinds.map((kind) => build(root, name, path, kind)));
      figures.push(...(await measure(builds, runs)));
    }
    return figures.map((f) => ({ ...f, sizeRatio: f.bytes / baseline.bytes, initRatio: f.initMs / baseline.initMs }));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
