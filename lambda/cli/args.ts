/** Command-line arguments of the operator CLI (node:util parseArgs), with each command's help. */
import { parseArgs } from 'node:util';

export type Command = 'reconcile' | 'plan' | 'status';

export interface CliArgs {
  command: Command | 'help';
  dryRun: boolean;
  json: boolean;
  table?: string;
  help: boolean;
}

export const USAGE: Record<Command | 'help', string> = {
  help: `Usage: npm run cli -- <command> [options]

Commands:
  reconcile   run one full pass (attach, detach, report) and print what it did
  plan        what a full pass would do and why, changing nothing (= reconcile --dry-run)
  status      the actual state: volume, node, state, device, mounted, operation, backoff

Every command takes --json, --table <name> (or TABLE_NAME) and --help.
Environment: KUBECONFIG, AWS_REGION, AWS_ENDPOINT_URL_EC2, AWS_ENDPOINT_URL_DYNAMODB, TABLE_NAME,
and the controller's settings (SYNC_PERIOD_SECONDS, LEASE_SECONDS, ...).
Exit codes: 0 converged, 1 error, 2 work remains.`,
  reconcile: `Usage: npm run cli -- reconcile [--dry-run] [--json] [--table <name>]

Runs one full pass against the cluster of KUBECONFIG, EC2 and the DynamoDB table, as the
scheduled Lambda does. With --dry-run it only reads and plans.
Exit codes: 0 converged, 1 error, 2 work remains.`,
  plan: `Usage: npm run cli -- plan [--json] [--table <name>]

Reads the cluster, the actual state and EC2, and prints the plan: every action with its reason,
detaches held back by the mass-detach guard, and what waits. Changes nothing.
Exit codes: 0 nothing to do, 1 error, 2 the plan has work.`,
  status: `Usage: npm run cli -- status [--json] [--table <name>]

Prints the persisted actual state: one row per (volume, node) with state, device, mounted, the
operation in flight and the backoff.
Exit codes: 0 settled, 1 error, 2 operations in flight or attachments unsettled.`,
};

export class UsageError extends Error {}

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
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const [command, ...extra] = parsed.positionals;
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  if (command !== undefined && !['reconcile', 'plan', 'status'].includes(command))
    throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  const { values } = parsed;
  if (values['dry-run'] && command !== 'reconcile') throw new UsageError('--dry-run applies to reconcile only');
  return {
    command: (command as Command | undefined) ?? 'help',
    dryRun: values['dry-run'],
    json: values.json,
    ...(values.table === undefined ? {} : { table: values.table }),
    help: values.help || command === undefined,
  };
}
