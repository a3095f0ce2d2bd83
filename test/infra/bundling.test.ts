/**
 * The real esbuild bundling of one handler through the project's function construct (the others
 * share its settings: infra/handler-bundle.ts): an ES module with its source map, the SDK inside, a
 * `require` shim for CommonJS dependencies, and `handler` exported.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { App, Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { HANDLER_ENTRIES } from '../../infra/contracts.js';
import { ControllerFunction } from '../../infra/constructs/controller-function.js';
import { SYNTH_TIMEOUT_MS, TEST_CA } from './synth.js';

/** What the handler's composition root validates at init; nothing is contacted during import. */
const INIT_ENV = {
  TABLE_NAME: 'volumes',
  CLUSTER_NAME: 'test',
  CLUSTER_ENDPOINT: 'https://127.0.0.1:1',
  AWS_REGION: 'eu-west-1',
  CLUSTER_CA: TEST_CA,
  AWS_ACCESS_KEY_ID: 'AKIDTEST',
  AWS_SECRET_ACCESS_KEY: 'test-secret',
  POWERTOOLS_LOG_LEVEL: 'ERROR',
};

let assetDir: string;
let bundle: string;

/** The modules the bundle was built from, as its source map names them. */
const sources = () => (JSON.parse(readFileSync(path.join(assetDir, 'index.mjs.map'), 'utf8')) as { sources: string[] }).sources;

beforeAll(() => {
  // What the CLI sets: resources name their asset directory in metadata.
  const app = new App({ context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, 'BundlingTest');
  const fn = new ControllerFunction(stack, 'Scheduled', {
    entry: HANDLER_ENTRIES.scheduled,
    description: 'bundling test',
    memorySize: 1024,
    timeout: Duration.minutes(5),
    reservedConcurrency: 2,
    environment: {},
    role: new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') }),
  });
  const assembly = app.synth();
  const assetPath = (fn.function.node.defaultChild as lambda.CfnFunction).getMetadata('aws:asset:path') as string;
  assetDir = path.join(assembly.directory, assetPath);
  bundle = readFileSync(path.join(assetDir, 'index.mjs'), 'utf8');
}, 2 * SYNTH_TIMEOUT_MS);

describe('handler bundle', () => {
  it('is an ES module with its source map and nothing else', () => {
    expect(readdirSync(assetDir).sort()).toEqual(['index.mjs', 'index.mjs.map']);
    expect(bundle).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
  });

  it('starts with the require shim CommonJS dependencies need inside an ES module', () => {
    expect(
      bundle.startsWith(
        "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      ),
    ).toBe(true);
  });

  it('keeps function names, so a stack trace in the logs reads without source maps (which Lambda starts without)', () => {
    expect(bundle).toMatch(/\bfunction verifyAgainstEc2\(/);
    expect(bundle).toMatch(/\bfunction runFullPass\(/);
  });

  it('exports handler', () => {
    expect(bundle).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}/);
  });

  it("carries the AWS SDK inside instead of importing the runtime's copy", () => {
    const staticImport = /\bimport\s*(?:\{[^}]*\}|\*\s*as\s*[\w$]+|[\w$]+)\s*from\s*["']([^"']+)["']/g;
    const imported = [...bundle.matchAll(staticImport)].map((m) => m[1] as string);
    expect(imported).toContain('node:module');
    expect(imported.filter((specifier) => !specifier.startsWith('node:') && !/^[a-z_]+$/.test(specifier))).toEqual([]);
    expect(bundle).toContain('"aws-sdk-js"');
  });

  it('leaves out the SDK shapes of EC2 operations the controller never calls', () => {
    // Booleans, not the bundle itself: a failure would print all 5 MB of it.
    expect(/\bAttachVolumeRequest\$=/.test(bundle)).toBe(true);
    expect(/\bRunInstancesRequest\$=/.test(bundle)).toBe(false);
  });

  it("carries zod's English messages only, not every locale (zod imported as a namespace)", () => {
    const locales = sources()
      .filter((s) => /node_modules\/zod\/v4\/locales\//.test(s))
      .map((s) => path.basename(s));
    expect(locales).toEqual(['en.js']);
  });

  it("builds no EventBridge or SQS envelope schema: the scheduled function parses Scheduler's payload only", () => {
    expect(sources().filter((s) => s.includes('node_modules/@aws-lambda-powertools/parser/'))).toEqual([]);
  });

  it("imports no built-in module as an ES module but node:module: an import of node:http reads its lazy getters, which load Node's own undici", () => {
    const staticImport = /\bimport\s*(?:\{[^}]*\}|\*\s*as\s*[\w$]+|[\w$]+)\s*from\s*["']([^"']+)["']/g;
    expect([...bundle.matchAll(staticImport)].map((m) => m[1])).toEqual(['node:module']);
  });

  it("loads without Node's own undici (nothing here uses fetch or WebSocket)", () => {
    const loaded = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        'await import(process.argv[1]); console.log(JSON.stringify(process.moduleLoadList))',
        path.join(assetDir, 'index.mjs'),
      ],
      { env: { PATH: process.env.PATH ?? '', ...INIT_ENV }, encoding: 'utf8' },
    );
    expect(JSON.parse(loaded.trim().split('\n').at(-1) as string)).not.toContain('NativeModule internal/deps/undici/undici');
  });

  it('parses as an ES module on Node 24', () => {
    expect(() => execFileSync(process.execPath, ['--check', path.join(assetDir, 'index.mjs')])).not.toThrow();
  });
});
