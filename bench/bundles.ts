/**
 * Bundle size and cold-start initialisation of each Lambda handler, bundled with the options
 * the stack's NodejsFunction passes to esbuild (ESM, node24, minified, source map without
 * sources, the SDK bundled, the `require` shim), each compared with an empty handler's bundle.
 */
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { HANDLER_ENTRIES, REPO_ROOT } from '../infra/contracts.js';

const run = promisify(execFile);

/** The same banner as infra/constructs/controller-function.ts (NodejsFunction's `banner`). */
const REQUIRE_SHIM = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

export interface BundleFigures {
  name: string;
  bytes: number;
  gzipBytes: number;
  /** Median milliseconds to import the bundle in a fresh Node process (Lambda's init phase, minus the runtime). */
  initMs: number;
  sizeRatio: number;
  initRatio: number;
}

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
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    banner: { js: REQUIRE_SHIM },
    tsconfig: join(REPO_ROOT, 'tsconfig.json'),
    logLevel: 'error',
  });
  return outfile;
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

const IMPORT_TIMER = 'const t = performance.now(); await import(process.argv[1]); console.log(performance.now() - t);';

async function initMs(file: string, runs: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', IMPORT_TIMER, file], {
      env: { ...INIT_ENV, PATH: process.env.PATH ?? '' },
    });
    samples.push(Number(stdout.trim()));
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] as number;
}

async function measure(name: string, entry: string, root: string, runs: number) {
  const dir = await mkdtemp(join(root, `${name}-`));
  const file = await bundle(entry, dir);
  const bytes = (await stat(file)).size;
  return { name, bytes, gzipBytes: gzipSync(await readFile(file)).length, initMs: await initMs(file, runs) };
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
