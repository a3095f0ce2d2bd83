/**
 * The operator commands, given parsed arguments and an environment. Returns the exit code
 * (0 converged, 1 error, 2 work remains) and writes through `out`/`err`, so tests run it in-process.
 */
import { createController, type Controller, type ControllerOverrides } from '../composition.js';
import { ConfigError, loadConfig } from '../config.js';
import { parseCli, USAGE, UsageError, type CliArgs } from './args.js';
import { formatPass, formatStatus, statusRows } from './format.js';

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

const EXIT = { converged: 0, error: 1, workRemains: 2 } as const;

/** A CLI pass may take this long (there is no Lambda timeout to respect). */
const CLI_BUDGET_MS = 5 * 60_000;

/** Parses the command line and runs it; a usage mistake prints the help and exits 1. */
export async function runMain(
  argv: string[],
  env: Record<string, string | undefined>,
  io: Io,
  overrides: ControllerOverrides = {},
): Promise<number> {
  let args: CliArgs;
  try {
    args = parseCli(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`${error.message}\n\n${USAGE.help}`);
    return EXIT.error;
  }
  return runCli(args, env, io, overrides);
}

async function runCli(
  args: CliArgs,
  env: Record<string, string | undefined>,
  io: Io,
  overrides: ControllerOverrides = {},
): Promise<number> {
  if (args.help) {
    io.out(USAGE[args.command]);
    return EXIT.converged;
  }
  let controller: Controller;
  try {
    const config = loadConfig({ ...env, ...(args.table === undefined ? {} : { TABLE_NAME: args.table }) }, 'local');
    // Logs would mix with the output (and break --json): silent unless asked for.
    controller = createController({ ...config, logLevel: env.POWERTOOLS_LOG_LEVEL ?? 'SILENT' }, overrides);
  } catch (error) {
    io.err(error instanceof ConfigError ? error.message : `cannot start: ${String(error)}`);
    return EXIT.error;
  }
  try {
    return await execute(controller, args, io);
  } catch (error) {
    io.err(`error: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.error;
  } finally {
    await controller.close();
  }
}

async function execute(controller: Controller, args: CliArgs, io: Io): Promise<number> {
  if (args.command === 'status') {
    const { records, corrupt } = await controller.ports.store.scan();
    const rows = statusRows(records, controller.clock.now());
    io.out(args.json ? JSON.stringify({ rows, corrupt }, null, 2) : formatStatus(rows));
    for (const item of corrupt) io.err(`corrupt item ${item.key}: ${item.problem}`);
    const unsettled = rows.some((r) => r.operation !== '-' || r.state !== 'attached');
    return unsettled ? EXIT.workRemains : EXIT.converged;
  }
  const dryRun = args.command === 'plan' || args.dryRun;
  const report = await controller.fullPass({ deadline: controller.clock.now() + CLI_BUDGET_MS }, { dryRun });
  io.out(args.json ? JSON.stringify(report, null, 2) : formatPass(report));
  if (!report.clusterComplete) return EXIT.error;
  return report.converged ? EXIT.converged : EXIT.workRemains;
}
