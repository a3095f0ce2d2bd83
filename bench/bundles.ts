/**
 * Bundle size and cold-start initialisation of each Lambda handler, bundled with the options
 * the stack's NodejsFunction passes to esbuild (ESM, node24, minified but for identifiers, source map without
 * sources, the SDK bundled, the `require` shim), each compared with an empty handler's bundle. Init is timed
 * as wall time and as the process's CPU time: on a machine shared with other work the wall time
 * grows with the load, the CPU time much less, so both are reported with the load average.
 */
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile, readFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { MINIFY, REQUIRE_SHIM } from '../infra/bundling.js';
import { HANDLER_ENTRIES, REPO_ROOT } from '../infra/contracts.js';

const run = promisify(execFile);

export async function bundle(entry: string, outDir: string): Promise<string> {
  const outfile = join(outDir, 'index.mjs');
  await build({
    entryPoints: [entry],
    bundle: true,
    outfile,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    mainFields: ['module', 'main'],
    ...MINIFY,
    sourcemap: true,
    sourcesContent: false,
    banner: { js: REQUIRE_SHIM },
    tsconfig: join(REPO_ROOT, 'tsconfig.json'),
    logLevel: 'error',
  });
  return outfile;
}

export interface BundleFigures {
  name: string;
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

/** As Lambda starts the functions: without `--enable-source-maps` (infra/bundling.ts says why). */
async function initTimes(file: string, runs: number): Promise<{ initMs: number; initCpuMs: number }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', IMPORT_TIMER, file], {
      env: { ...INIT_ENV, PATH: process.env.PATH ?? '' },
    });
    const [ms, cpuMs] = stdout.trim().split(' ').map(Number);
    wall.push(ms as number);
    cpu.push(cpuMs as number);
  }
  return { initMs: median(wall), initCpuMs: median(cpu) };
}

async function measure(name: string, entry: string, root: string, runs: number) {
  const dir = await mkdtemp(join(root, `${name}-`));
  const file = await bundle(entry, dir);
  const bytes = (await stat(file)).size;
  return {
    name,
    bytes,
    gzipBytes: gzipSync(await readFile(file)).length,
    ...(await initTimes(file, runs)),
    loadAverage: loadavg()[0] ?? 0,
  };
}

export async function measureBundles(runs = 5): Promise<BundleFigures[]> {
  const root = await mkdtemp(join(tmpdir(), 'bench-bundles-'));
  try {
    const empty = join(root, 'empty-handler.mjs');
    await writeFile(empty, 'export const handler = async () => ({});\n');
    const baseline = await measure('empty', empty, root, runs);
    const figures = [baseline];
    for (const [name, entry] of Object.entries(HANDLER_ENTRIES)) figures.push(await measure(name, join(REPO_ROOT, entry), root, runs));
    return figures.map((f) => ({ ...f, sizeRatio: f.bytes / baseline.bytes, initRatio: f.initMs / baseline.initMs }));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
