/**
 * The built executable (bin/ebs-attach-detach running the bundle of scripts/build-cli.ts): it starts
 * without TypeScript or npm, its help loads nothing else, and its stdout carries the result alone
 * even with logs and EMF metrics turned on.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../../sandbox/world.js';
import { buildCli } from '../../scripts/build-cli.js';

const exec = promisify(execFile);

describe('the ebs-attach-detach executable', () => {
  let dir: string;
  let bin: string;
  let world: World;

  beforeAll(async () => {
    // The package's layout: bin/ebs-attach-detach beside dist/cli/main.js.
    dir = await mkdtemp(join(tmpdir(), 'ebs-cli-'));
    await buildCli(join(dir, 'dist', 'cli'));
    await mkdir(join(dir, 'bin'));
    bin = join(dir, 'bin', 'ebs-attach-detach');
    await copyFile('bin/ebs-attach-detach', bin);
    world = await startWorld({ nodes: 1 });
    world.addPod('db-0', await world.createVolume({ name: 'data-db-0' }), 'node-1');
  }, 120_000);
  afterAll(async () => {
    await world.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const runBin = async (args: string[], env: Record<string, string>) => {
    try {
      const { stdout, stderr } = await exec('sh', [bin, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  it('--help: the usage on stdout, exit 0, without the controller loaded', async () => {
    const { code, stdout, stderr } = await runBin(['--help'], {});
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: ebs-attach-detach <command> \[options\]/);
    expect(stderr).toBe('');
  });

  it('reconcile --json with logs and metrics on: stdout is the report alone, logs and EMF on stderr', async () => {
    const env = { ...world.env, POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_METRICS_DISABLED: 'false' };
    const { code, stdout, stderr } = await runBin(['reconcile', '--json'], env);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ kind: 'full', converged: true });
    expect(stderr).toContain('"_aws"');
    expect(stderr).toContain('"message": "pass finished"');
  });

  it('a configuration error: what is expected and an example on stderr, exit 1', async () => {
    const { code, stdout, stderr } = await runBin(['status'], { ...world.env, MAX_WAIT_FOR_UNMOUNT_SECONDS: 'abc' });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('MAX_WAIT_FOR_UNMOUNT_SECONDS: a whole number of seconds above 0 (e.g. 360) or "disabled"; got "abc"');
  });
});
