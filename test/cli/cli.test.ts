import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCli, UsageError } from '../../lambda/cli/args.js';
import { runMain, type Io } from '../../lambda/cli/run.js';
import { localDynamoClient } from '../../sandbox/dynamodb.js';
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
    ['init --print', ['init', '--print'], { command: 'init', print: true }],
    ['status --watch every half second', ['status', '--watch', '--interval', '0.5'], { command: 'status', watch: true, intervalMs: 500 }],
    ['explain a pod', ['explain', 'default/db-0'], { explain: { kind: 'pod', namespace: 'default', name: 'db-0' } }],
    ['explain a claim', ['explain', 'pvc', 'default/data'], { explain: { kind: 'pvc', namespace: 'default', name: 'data' } }],
    ['explain a volume', ['explain', 'vol-0123456789abcdef0'], { explain: { kind: 'volume', volumeId: 'vol-0123456789abcdef0' } }],
    ['explain a node', ['explain', 'ip-10-0-1-23.ec2.internal'], { explain: { kind: 'node', name: 'ip-10-0-1-23.ec2.internal' } }],
  ])('reads %s', (_name, argv, expected) => {
    expect(parseCli(argv)).toMatchObject(expected);
  });

  it.each([
    ['an unknown command', ['attach-everything'], 'unknown command'],
    ['an unknown flag', ['status', '--force'], "Unknown option '--force'"],
    ['--dry-run on status', ['status', '--dry-run'], '--dry-run applies to reconcile only'],
    ['--print on plan', ['plan', '--print'], '--print applies to init only'],
    ['--watch on plan', ['plan', '--watch'], '--watch and --interval apply to status only'],
    ['a bad interval', ['status', '--watch', '--interval', 'soon'], '--interval takes seconds above 0 (e.g. 2)'],
    ['a stray argument', ['plan', 'now'], 'unexpected argument'],
    ['explain without an object', ['explain'], 'explain needs an object'],
    ['explain pvc without namespace', ['explain', 'pvc', 'data'], 'explain pvc takes namespace/name'],
    ['explain with a stray word', ['explain', 'node-1', 'now'], 'unexpected argument "now"'],
    ['a pod path with three parts', ['explain', 'a/b/c'], 'a pod is namespace/name'],
  ])('refuses %s', (_name, argv, message) => {
    expect(() => parseCli(argv)).toThrow(UsageError);
    expect(() => parseCli(argv)).toThrow(message);
  });
});

describe('the CLI against the sandboxes', () => {
  let world: World;
  let volume: WorldVolume;
  const run = async (argv: string[], env: Record<string, string | undefined> = world.env, extra: Partial<Io> = {}) => {
    const out: string[] = [];
    const err: string[] = [];
    const io: Io = { out: (t) => out.push(t), err: (t) => err.push(t), ...extra };
    const code = await runMain(argv, env, io, { ec2Wait: { initialDelayMs: 25 } });
    return { code, out: out.join('\n'), err: err.join('\n'), outputs: out };
  };

  beforeAll(async () => {
    world = await startWorld({ nodes: 1 });
    volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');
  });
  afterAll(async () => world.stop());

  it('init: an existing table of the right shape is fine (exit 0); a new one is created', async () => {
    const again = await run(['init']);
    expect(again.code).toBe(0);
    expect(again.out).toContain('already exists');
    const created = await run(['init', '--json', '--table', 'second-table']);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.out)).toMatchObject({
      table: 'second-table',
      outcome: 'created',
      schema: { partitionKey: { name: 'pk', type: 'S' } },
    });
    expect(JSON.parse((await run(['init', '--json', '--table', 'second-table'])).out)).toMatchObject({ outcome: 'exists' });
  });

  it('init: a table of another shape is an error that says why (exit 1)', async () => {
    const client = localDynamoClient(world.dynamo.endpoint);
    await client.send(
      new CreateTableCommand({
        TableName: 'other-shape',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    client.destroy();
    const result = await run(['init', '--table', 'other-shape']);
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      'table other-shape exists but cannot hold the actual state: its key must be the partition key pk (S) alone, not id (HASH)',
    );
  });

  it('init --print (or no local endpoint): the AWS CLI and the CDK with the schema, creating nothing', async () => {
    const printed = await run(['init', '--print']);
    expect(printed.code).toBe(0);
    expect(printed.out).toContain(
      'aws dynamodb create-table --table-name ebs-attach-detach-volumes --attribute-definitions AttributeName=pk,AttributeType=S --key-schema AttributeName=pk,KeyType=HASH --billing-mode PAY_PER_REQUEST',
    );
    expect(printed.out).toContain("partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING }");
    const inAws = await run(['init', '--json'], { ...world.env, AWS_ENDPOINT_URL_DYNAMODB: undefined });
    const instructions = JSON.parse(inAws.out) as { table: string; awsCli: string[]; cdk: string };
    expect(instructions.table).toBe('ebs-attach-detach-volumes');
    expect(instructions.awsCli).toHaveLength(4);
    expect(instructions.cdk).toContain('new dynamodb.Table');
  });

  it('plan: shows the attach and why, changes nothing, exits 2 (not converged)', async () => {
    const result = await run(['plan']);

    expect(result.code).toBe(2);
    expect(result.out).toContain(`attach  ${volume.volumeId}  node-1`);
    expect(result.out).toContain('needed by pod(s) default/db-0');
    expect(result.out).toContain(`not attached: ${volume.volumeId} on node-1: not attached`);
    expect(world.ec2.counters().calls.AttachVolume).toBeUndefined();
  });

  it('reconcile: runs the pass and exits 0 once converged, progress on stderr', async () => {
    const result = await run(['reconcile']);

    expect(result.code).toBe(0);
    expect(result.out).toContain('Converged: every desired attachment is attached and reported.');
    expect(result.err).toContain('actions 1/1 (100%)');
    expect(world.ec2.counters().calls.AttachVolume).toBe(1);
  });

  it('status: a table of the actual state, exit 0 when settled', async () => {
    const result = await run(['status']);

    expect(result.code).toBe(0);
    expect(result.out.split('\n')).toEqual([
      expect.stringMatching(/^VOLUME\s+NODE\s+STATE\s+DEVICE\s+MOUNTED\s+OPERATION\s+BACKOFF\s+LAST ERROR$/),
      expect.stringMatching(new RegExp(`^${volume.volumeId}\\s+node-1\\s+attached\\s+/dev/xvdaa\\s+no\\s+-\\s+-\\s+-$`)),
    ]);
  });

  it('status --json: machine-readable rows', async () => {
    const result = await run(['status', '--json']);

    expect(JSON.parse(result.out)).toMatchObject({ rows: [{ volume: volume.volumeId, node: 'node-1', state: 'attached' }], corrupt: [] });
  });

  it('status --watch off a terminal: a timestamped table per refresh until stopped', async () => {
    const stop = new AbortController();
    const outputs: string[] = [];
    const code = await runMain(['status', '--watch', '--interval', '0.01'], world.env, {
      out: (text) => (outputs.push(text), outputs.length === 3 && stop.abort()),
      err: () => undefined,
      signal: stop.signal,
    });
    expect(code).toBe(0);
    expect(outputs).toHaveLength(3);
    for (const output of outputs) {
      expect(output).toMatch(
        /^--- \d{4}-\d\d-\d\dT[\d:.]+Z · 1 attachment\(s\): 1 attached, 0 attaching, 0 detaching, 0 uncertain; 0 operation\(s\) in flight\nVOLUME/,
      );
    }
  });

  it('status --watch on a terminal redraws in place; with --json one JSON line per refresh', async () => {
    const stop = new AbortController();
    const drawn: string[] = [];
    await runMain(['status', '--watch'], world.env, {
      out: (t) => (drawn.push(t), stop.abort()),
      err: () => undefined,
      isTTY: true,
      signal: stop.signal,
    });
    expect(drawn[0]!.startsWith('\x1b[H\x1b[2JEvery 2 s · ')).toBe(true);
    const lines: string[] = [];
    const again = new AbortController();
    await runMain(['status', '--watch', '--json'], world.env, {
      out: (t) => (lines.push(t), again.abort()),
      err: () => undefined,
      signal: again.signal,
    });
    const refresh = JSON.parse(lines[0]!) as { at: string; rows: { volume: string }[] };
    expect(Date.parse(refresh.at)).not.toBeNaN();
    expect(refresh.rows.map((r) => r.volume)).toEqual([volume.volumeId]);
  });

  it('explain: the chain for a pod, exit 0 when attached', async () => {
    const result = await run(['explain', 'default/db-0']);

    expect(result.code).toBe(0);
    expect(result.out).toContain(`${volume.volumeId} on node-1  [attached]`);
    expect(result.out).toMatch(/EC2 now +attached to i-/);
    expect(result.out).toMatch(/VolumeAttachment +csi-[0-9a-f]+: attached true, devicePath \/dev\/xvdaa/);
    expect(result.out.split('\n').at(-1)).toBe('Attached to node-1 and reported on the node: nothing to do.');
  });

  it('explain --json: the chains and the verdict; an unknown pod exits 2', async () => {
    const result = await run(['explain', 'default/nope', '--json']);

    expect(result.code).toBe(2);
    expect(JSON.parse(result.out)).toMatchObject({ target: 'pod default/nope', attached: false, chains: [{ code: 'pod-not-found' }] });
  });

  it('a table that does not exist is an error (exit 1) with the reason and what to do', async () => {
    const result = await run(['status', '--table', 'no-such-table']);

    expect(result.code).toBe(1);
    expect(result.err).toMatch(/error: .*(not found|non-existent|ResourceNotFound)/i);
    expect(result.err).toContain('hint: the state table no-such-table does not exist at http://127.0.0.1:');
    expect(result.err).toContain('`ebs-attach-detach init`');
  });

  it('reconcile --json, once converged: the pass report, nothing to do', async () => {
    const result = await run(['reconcile', '--json']);

    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({
      kind: 'full',
      converged: true,
      actions: [],
      dryRun: false,
      skipped: [],
      notAttached: [],
    });
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
    expect(result.err).toContain('Usage: ebs-attach-detach <command>');
  });

  it("--help prints a command's help and exits 0 without touching anything", async () => {
    const result = await run(['status', '--help'], {});

    expect(result.code).toBe(0);
    expect(result.out).toContain('Usage: ebs-attach-detach status');
  });

  it('a configuration without a table is an error naming the setting and what it takes (exit 1)', async () => {
    const result = await run(['status'], { ...world.env, TABLE_NAME: undefined });

    expect(result.code).toBe(1);
    expect(result.err).toContain('TABLE_NAME: required: the DynamoDB table that holds the actual state (e.g. ebs-attach-detach-volumes)');
  });
});
