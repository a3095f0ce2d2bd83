/**
 * The built executable (bin/ebs-attach-detach running the bundle of scripts/build-cli.ts): it starts
 * without TypeScript or npm, its help loads nothing else, and its stdout carries the result alone
 * even with logs and EMF metrics turned on. Cold processes of it, one after another, take an
 * unrenewed csi-attacher Lease exactly its duration after the first of them saw it, never before,
 * and never a live one: what they agree on is in the store.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIDECAR_LEASE, sidecarOnKube } from '../../sandbox/lease-election.js';
import { startWorld, type World } from '../../sandbox/world.js';
import { buildCli } from '../../scripts/build-cli.js';

const exec = promisify(execFile);

let dir: string;
let bin: string;

beforeAll(async () => {
  // The package's layout: bin/ebs-attach-detach beside dist/cli/main.js.
  dir = await mkdtemp(join(tmpdir(), 'ebs-cli-'));
  await buildCli(join(dir, 'dist', 'cli'));
  await mkdir(join(dir, 'bin'));
  bin = join(dir, 'bin', 'ebs-attach-detach');
  await copyFile('bin/ebs-attach-detach', bin);
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const runBin = async (args: string[], env: Record<string, string>) => {
  try {
    const { stdout, stderr } = await exec('sh', [bin, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
};

describe('the ebs-attach-detach executable', () => {
  let world: World;

  beforeAll(async () => {
    world = await startWorld({ nodes: 1 });
    world.addPod('db-0', await world.createVolume({ name: 'data-db-0' }), 'node-1');
  }, 120_000);
  afterAll(() => world.stop());

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

describe('cold CLI processes under LEASE_FENCE=on (each remembers nothing; the store keeps the sight)', () => {
  /** The sidecar's `--leader-election-lease-duration` here: short, so real time can pass it. */
  const LEASE_SECONDS = 4;
  const US = 'ebs-attach-detach/world';
  let world: World;
  let sidecar: ReturnType<typeof sidecarOnKube>;

  beforeAll(async () => {
    world = await startWorld({ nodes: 1, mode: 'attacher', sidecar: true, env: { LEASE_FENCE: 'on' } });
    sidecar = sidecarOnKube(world.kube.kubeconfigPath, world.clock, 'ebs-csi-controller-0', LEASE_SECONDS);
  }, 120_000);
  afterAll(async () => {
    await sidecar.close();
    await world.stop();
  });

  const lease = () =>
    world.kube.get('Lease', SIDECAR_LEASE.namespace, SIDECAR_LEASE.name) as { spec: { holderIdentity: string; acquireTime: string } };
  const reconcile = async () => JSON.parse((await runBin(['reconcile', '--json'], world.env)).stdout) as { fenced?: string };

  it('never take a live Lease; take an unrenewed one exactly its duration after the first sight, never before', async () => {
    // Live: the sidecar renews every second while cold processes run.
    await sidecar.elector.tick();
    const renewing = setInterval(() => void sidecar.elector.tick(), 1_000);
    try {
      for (let i = 0; i < 2; i++)
        expect((await reconcile()).fenced).toMatch(/^held by ebs-csi-controller-0; expires in [34] s unless renewed$/);
    } finally {
      clearInterval(renewing);
    }
    expect(lease().spec.holderIdentity).toBe('ebs-csi-controller-0');

    // Unrenewed: one cold process after another until one takes it.
    const fenced: string[] = [];
    let firstSight: number | undefined;
    while (lease().spec.holderIdentity !== US && fenced.length < 20) {
      const report = await reconcile();
      if (report.fenced !== undefined) fenced.push(report.fenced);
      firstSight ??= (await world.controller.ports.handover!.read()).observation?.seenAt;
    }
    expect(lease().spec.holderIdentity).toBe(US);
    expect(fenced.length).toBeGreaterThanOrEqual(1);
    // The taker read the Lease (its acquire time) no earlier than the record's duration after the first sight.
    expect(Date.parse(lease().spec.acquireTime) - firstSight!).toBeGreaterThanOrEqual(LEASE_SECONDS * 1000);
  }, 120_000);
});
