/**
 * The operator commands, given parsed arguments and an environment. Returns the exit code the help
 * documents and writes through `io`, so tests run it in-process: the result alone to `out`
 * (stdout), everything else — errors, hints, progress, logs — to `err` (stderr).
 */
import { createController, type Controller, type ControllerOverrides } from '../composition.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { parseCli, USAGE, UsageError, type CliArgs } from './args.js';
import { EXIT } from './commands/exit.js';
import { runExplain } from './commands/explain.js';
import { runHandback, runTakeover } from './commands/handback.js';
import { runInit } from './commands/init.js';
import { runPass } from './commands/pass.js';
import { runShadow } from './commands/shadow.js';
import { runStatus, watchStatus } from './commands/status.js';
import { describeError } from './errors.js';
import type { Io } from './io.js';
import { progressReporter } from './progress.js';

export type { Io } from './io.js';

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
  if (args.help) {
    io.out(USAGE[args.command]);
    return EXIT.converged;
  }
  let config: Config;
  try {
    config = loadConfig({ ...env, ...(args.table === undefined ? {} : { TABLE_NAME: args.table }) }, 'local');
  } catch (error) {
    io.err(error instanceof ConfigError ? error.message : `cannot start: ${String(error)}`);
    return EXIT.error;
  }
  try {
    if (args.command === 'init') return await runInit(config, args, io);
    return await withController(config, env, io, overrides, (controller) => execute(controller, args, io));
  } catch (error) {
    io.err(describeError(error, config));
    return EXIT.error;
  }
}

async function withController(
  config: Config,
  env: Record<string, string | undefined>,
  io: Io,
  overrides: ControllerOverrides,
  run: (controller: Controller) => Promise<number>,
): Promise<number> {
  // Logs go to stderr (main.ts), and only when asked for: the output stays clean for pipes.
  const write = (text: string) => (io.errWrite === undefined ? io.err(text.replace(/\n$/, '')) : io.errWrite(text));
  const progress = progressReporter({ isTTY: io.errIsTTY === true, write });
  const controller = createController({ ...config, logLevel: env.POWERTOOLS_LOG_LEVEL ?? 'SILENT' }, { progress, ...overrides });
  try {
    return await run(controller);
  } finally {
    await controller.close();
  }
}

function execute(controller: Controller, args: CliArgs, io: Io): Promise<number> {
  switch (args.command) {
    case 'status':
      return args.watch ? watchStatus(controller, args, io) : runStatus(controller, args, io);
    case 'explain':
      return runExplain(controller, args.explain!, args, io);
    case 'shadow':
      return runShadow(controller, args, io);
    case 'handback':
      return runHandback(controller, args, io);
    case 'takeover':
      return runTakeover(controller, args, io);
    default:
      return runPass(controller, { dryRun: args.command === 'plan' || args.dryRun, json: args.json }, io);
  }
}
