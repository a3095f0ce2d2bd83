/** Command-line arguments of the operator CLI (node:util parseArgs), with each command's help. */
import { parseArgs } from 'node:util';
import type { ExplainTarget } from './explain/types.js';

export type Command = 'init' | 'reconcile' | 'plan' | 'shadow' | 'handback' | 'takeover' | 'status' | 'explain';
const COMMANDS: readonly Command[] = ['init', 'reconcile', 'plan', 'shadow', 'handback', 'takeover', 'status', 'explain'];

export interface CliArgs {
  command: Command | 'help';
  dryRun: boolean;
  json: boolean;
  table?: string;
  help: boolean;
  /** init: print how to create the table in AWS instead of creating it. */
  print: boolean;
  /** takeover: begin even though the shadow's preflight says EC2 would refuse (or did not answer) a call. */
  despitePreflight: boolean;
  /** status: refresh every `intervalMs`. */
  watch: boolean;
  intervalMs: number;
  explain?: ExplainTarget;
}

const EXIT_CODES = `Exit codes:
  0  converged: every desired attachment is attached to its node's instance and reported on the
     node; no pod volume skipped, nothing deferred, held back or failed (init: the table is ready;
     status: every attachment attached, no operation in flight; explain: every chain attached)
  1  error: bad usage or configuration, an unreadable cluster, store or EC2
  2  not converged: something desired is not attached and reported yet; the output says why`;

export const USAGE: Record<Command | 'help', string> = {
  help: `Usage: ebs-attach-detach <command> [options]

Commands:
  init               create the state table (locally: AWS_ENDPOINT_URL_DYNAMODB); --print: how to create it in AWS
  reconcile          run one full pass (attach, detach, report) and print what it did
  plan               what a full pass would do and why, changing nothing (= reconcile --dry-run)
  shadow             attacher mode: the csi-attacher sidecar's VolumeAttachments beside EC2 and our plan, changing nothing
  handback           attacher mode: writes off, wait until nothing of ours can act, release the sidecar's Lease
  takeover           attacher mode: writes on again after a handback
  status             the actual state: volume, node, state, device, mounted, operation, backoff (--watch)
  explain <object>   why a volume is or is not attached: namespace/pod, pvc namespace/name, vol-…, or a node

Every command takes --json (the result alone on stdout; logs go to stderr), --table <name>
(or TABLE_NAME) and --help. Settings come from the environment: see the README's settings table.
${EXIT_CODES}`,
  init: `Usage: ebs-attach-detach init [--print] [--json] [--table <name>]

Creates the state table (partition key pk, string; on-demand) where AWS_ENDPOINT_URL_DYNAMODB
points, and waits until it is active. Idempotent: an existing table of the right shape is fine,
one of another shape is an error. Without AWS_ENDPOINT_URL_DYNAMODB, or with --print, it creates
nothing and prints the CDK and AWS CLI that create it in AWS (the stack adds PITR, deletion
protection and TTL).
Exit codes: 0 the table is ready (or the instructions were printed), 1 error.`,
  reconcile: `Usage: ebs-attach-detach reconcile [--dry-run] [--json] [--table <name>]

Runs one full pass against the cluster of KUBECONFIG, EC2 and the state table, as the scheduled
Lambda does. With --dry-run it only reads and plans. The report lists actions with their reasons,
skipped pod volumes, what waits, what the mass-detach guard held back, and desired attachments
that are not attached and reported.
${EXIT_CODES}`,
  plan: `Usage: ebs-attach-detach plan [--json] [--table <name>]

Reads the cluster, the actual state and EC2, and prints the plan: every action with its reason,
skipped pod volumes, detaches held back by the mass-detach guard, and what waits. Changes nothing.
Exit codes: 0 nothing to do and everything attached, 1 error, 2 the plan has work or something waits.`,
  shadow: `Usage: ebs-attach-detach shadow [--json] [--table <name>]

The shadow step before taking over from the EBS CSI csi-attacher sidecar (OPERATING_MODE=attacher;
docs/eks.md, Step 1). Reads the VolumeAttachments, PVs, CSINodes and nodes, asks EC2 about every
volume they name, plans as a dry run (nothing written, the sidecar's Lease untouched), and prints
one row per VolumeAttachment of ebs.csi.aws.com: what the sidecar reported (attached, errors, its
finalizer and node-id annotation), EC2's attachment on the node's instance, what we would do next,
and a verdict: agrees, va-attached-ec2-not, ec2-attached-unrequested (a row of its own, for an
attachment no VolumeAttachment names), detach-pending, attach-pending, sidecar-error,
unresolvable, plan-differs, or unverified. A healthy cluster shows agrees everywhere but for a
few short-lived pending rows.
Exit codes: 0 compared (whatever the verdicts), 1 error (not attacher mode, an unreadable cluster).`,
  handback: `Usage: ebs-attach-detach handback [--json] [--table <name>]

Hands control back to the EBS CSI csi-attacher sidecar (OPERATING_MODE=attacher; docs/eks.md,
rollback), saying what it did at each step:
  1. turns writes off in the store's handover record: every pass that starts from now on only
     plans, at once, with no redeploy;
  2. waits until nothing of ours can still act: every pass that was already acting has surely
     stopped (its invocation's end plus LEASE_MARGIN_SECONDS) and every operation lease has run
     out (at most the full pass's timeout plus the margin, 5 min 15 s);
  3. with LEASE_FENCE=on, releases the sidecar's Lease as client-go does (no holder): the
     sidecar's standby takes it at its next retry and leads again.
Run it again at any time: it picks up where it is. \`ebs-attach-detach takeover\` turns writes on again.
Exit codes: 0 handed back (or nothing of ours held the Lease), 1 error (not attacher mode, the Lease
changed under the release: run it again).`,
  takeover: `Usage: ebs-attach-detach takeover [--despite-preflight] [--json] [--table <name>]

Turns writes on again in the store's handover record after a handback (OPERATING_MODE=attacher):
passes act from their next start; with LEASE_FENCE=on they take the sidecar's Lease once it
lapses (docs/eks.md, Step 2). The store forgets the Lease it held before, so passes fenced
until the takeover count as waiting, not as a failback.
First it runs the shadow with its preflight (EC2 dry-runs each VolumeAttachment's next call): while
any row says would-be-denied, kms-key-unlisted (a volume under a KMS key outside KMS_KEY_ARNS) or
preflight-unanswered it prints them and changes nothing, unless --despite-preflight.
Exit codes: 0 writes on, 1 error or refused by the preflight.`,
  status: `Usage: ebs-attach-detach status [--watch [--interval <seconds>]] [--json] [--table <name>]

Prints the persisted actual state: one row per (volume, node) with state, device, mounted, the
operation in flight and the backoff. --watch redraws it every --interval seconds (default 2) on a
terminal, and prints a timestamped table per refresh otherwise; Ctrl-C stops it.
Exit codes: 0 settled, 1 error, 2 operations in flight or attachments unsettled.`,
  explain: `Usage: ebs-attach-detach explain <namespace/pod | pvc namespace/name | vol-… | node> [--json] [--table <name>]

Follows one object through the whole chain: pod → claim → PV → volume id → desired node → record
(state, operation, lease, backoff with the last EC2 error) → what EC2 says now → VolumeAttachment
→ node status, and ends in one sentence: why it is or is not attached, what happens next and when.
Exit codes: 0 attached and reported, 1 error, 2 not (yet) attached.`,
};

export class UsageError extends Error {}

const VOLUME_ID = /^vol-[0-9a-f]{8}([0-9a-f]{9})?$/;

function explainTarget(words: string[]): ExplainTarget {
  const [first, second, ...extra] = words;
  if (first === undefined) throw new UsageError('explain needs an object: namespace/pod, pvc namespace/name, vol-…, or a node name');
  if (first === 'pvc') {
    const [namespace, name] = (second ?? '').split('/');
    if (!namespace || !name || extra.length > 0)
      throw new UsageError('explain pvc takes namespace/name, e.g. explain pvc default/data-db-0');
    return { kind: 'pvc', namespace, name };
  }
  if (second !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(second)}`);
  if (first.includes('/')) {
    const [namespace, name, more] = first.split('/');
    if (!namespace || !name || more !== undefined)
      throw new UsageError(`a pod is namespace/name, e.g. default/db-0, not ${JSON.stringify(first)}`);
    return { kind: 'pod', namespace, name };
  }
  return VOLUME_ID.test(first) ? { kind: 'volume', volumeId: first } : { kind: 'node', name: first };
}

function interval(raw: string | undefined): number {
  const seconds = Number(raw ?? '2');
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(`--interval takes seconds above 0 (e.g. 2), not ${JSON.stringify(raw)}`);
  return seconds * 1000;
}

export function parseCli(argv: string[]): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'dry-run': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        table: { type: 'string' },
        print: { type: 'boolean', default: false },
        'despite-preflight': { type: 'boolean', default: false },
        watch: { type: 'boolean', default: false },
        interval: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const [command, ...rest] = parsed.positionals;
  const { values } = parsed;
  if (command !== undefined && !COMMANDS.includes(command as Command)) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  if (command !== 'explain' && rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  if (values['dry-run'] && command !== 'reconcile') throw new UsageError('--dry-run applies to reconcile only');
  if (values.print && command !== 'init') throw new UsageError('--print applies to init only');
  if (values['despite-preflight'] && command !== 'takeover') throw new UsageError('--despite-preflight applies to takeover only');
  if ((values.watch || values.interval !== undefined) && command !== 'status')
    throw new UsageError('--watch and --interval apply to status only');
  const help = values.help || command === undefined;
  return {
    command: (command as Command | undefined) ?? 'help',
    dryRun: values['dry-run'],
    json: values.json,
    ...(values.table === undefined ? {} : { table: values.table }),
    help,
    print: values.print,
    despitePreflight: values['despite-preflight'],
    watch: values.watch,
    intervalMs: interval(values.interval),
    ...(command === 'explain' && !help ? { explain: explainTarget(rest) } : {}),
  };
}
