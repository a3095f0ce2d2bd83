import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCli, UsageError } from '../../lambda/cli/args.js';
import { runMain } from '../../lambda/cli/run.js';
import { startWorld, type World, type WorldVolume } from '../../sandbox/world.js';

describe('parseCli', () => {
  it.each([
    ['reconcile', ['reconcile'], { command: 'reconcile', dryRun: false, json: false, help: false }],
    [
      'a dry run with JSON and a table',
      ['reconcile', '--dry-run', '--json', '--table', 't1'],
      { command: 'reconcile', dryRun: true, json: true, table: 't1' },
    ],
    ['plan', ['plan'], { command: 'plan', dryRun: false }],
    ["a command's help", ['status', '--help'], { command: 'status', help: true }],
    ['no command as help', [], { command: 'help', help: true }],
  ])('reads %s', (_name, argv, expected) => {
    expect(parseCli(argv)).toMatchObject(expected);
  });

  it.each([
    ['an unknown command', ['attach-everything'], 'unknown command'],
    ['an unknown flag', ['status', '--force'], "Unknown option '--force'"],
    ['--dry-run on status', ['status', '--dry-run'], '--dry-run applies to reconcile only'],
    ['a stray argument', ['plan', 'now'], 'unexpected argument'],
  ])('refuses %s', (_name, argv, message) => {
    expect(() => parseCli(argv)).toThrow(UsageError);
    expect(() => parseCli(argv)).toThrow(message);
  });
});

describe('runCli against the sandboxes', () => {
  let world: World;
  let volume: WorldVolume;
  const run = async (argv: string[], env: Record<string, string | undefined> = world.env) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runMain(argv, env, { out: (t) => out.push(t), err: (t) => err.push(t) }, { ec2Wait: { initialDelayMs: 25 } });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  beforeAll(async () => {
    world = await startWorld({ nodes: 1 });
    volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');
  });
  afterAll(async () => world.stop());

  it('plan: shows the attach and why, changes nothing, exits 2 (work remains)', async () => {
    const result = await run(['plan']);

    expect(result.code).toBe(2);
    expect(result.out).toContain(`attach  ${volume.volumeId}  node-1`);
    expect(result.out).toContain('needed by pod(s) default/db-0');
    expect(world.ec2.counters().calls.AttachVolume).toBeUndefined();
  });

  it('reconcile: runs the pass and exits 0 once converged', async () => {
    const result = await run(['reconcile']);

    expect(result.code).toBe(0);
    expect(result.out).toContain('Converged.');
    expect(world.ec2.counters().calls.AttachVolume).toBe(1);
  });

  it('status: a table of the actual state, exit 0 when settled', async () => {
    const result = await run(['status']);

    expect(result.code).toBe(0);
    expect(result.out.split('\n')).toEqual([
      expect.stringMatching(/^VOLUME\s+NODE\s+STATE\s+DEVICE\s+MOUNTED\s+OPERATION\s+BACKOFF$/),
      expect.stringMatching(new RegExp(`^${volume.volumeId}\\s+node-1\\s+attached\\s+/dev/xvdaa\\s+no\\s+-\\s+-$`)),
    ]);
  });

  it('status --json: machine-readable rows', async () => {
    const result = await run(['status', '--json']);

    expect(JSON.parse(result.out)).toMatchObject({ rows: [{ volume: volume.volumeId, node: 'node-1', state: 'attached' }], corrupt: [] });
  });

  it('a table that does not exist is an error (exit 1) with the reason', async () => {
    const result = await run(['status', '--table', 'no-such-table']);

    expect(result.code).toBe(1);
    expect(result.err).toMatch(/error: .*(not found|non-existent|ResourceNotFound)/i);
  });

  it('reconcile --json, once converged: the pass report, nothing to do', async () => {
    const result = await run(['reconcile', '--json']);

    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({ kind: 'full', converged: true, actions: [], dryRun: false });
  });

  it('plan on a converged cluster: nothing to do, exit 0', async () => {
    const result = await run(['plan']);

    expect(result.code).toBe(0);
    expect(result.out).toContain('Nothing to do.');
  });

  it('a mistyped command prints the reason and the help, exit 1', async () => {
    const result = await run(['attach-everything']);

    expect(result.code).toBe(1);
    expect(result.err).toContain('unknown command "attach-everything"');
    expect(result.err).toContain('Usage: npm run cli -- <command>');
  });

  it("--help prints a command's help and exits 0 without touching anything", async () => {
    const result = await run(['status', '--help'], {});

    expect(result.code).toBe(0);
    expect(result.out).toContain('Usage: npm run cli -- status');
  });

  it('a configuration without a table is an error naming the setting (exit 1)', async () => {
    const result = await run(['status'], { ...world.env, TABLE_NAME: undefined });

    expect(result.code).toBe(1);
    expect(result.err).toContain('TABLE_NAME');
  });
});
