/**
 * `ebs-attach-detach <command>`: the operator CLI's entry point (bundled to dist/cli/main.js, the
 * package's bin). `--help` loads nothing but the argument parser; commands load the controller.
 * stdout carries the result alone: logs and metrics go to stderr, so `--json | jq` works.
 */
import { Console } from 'node:console';
import { parseCli, USAGE, UsageError } from './args.js';

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(
    `ebs-attach-detach needs Node.js 22.19 or later (this is ${process.version}): run it with the project's Node 24, e.g. npx ebs-attach-detach, or PATH=$PWD/node_modules/.bin:$PATH`,
  );
  process.exit(1);
}

const out = (text: string) => process.stdout.write(`${text}\n`);
const argv = process.argv.slice(2);
try {
  const args = parseCli(argv);
  if (args.help) {
    out(USAGE[args.command]);
    process.exit(0);
  }
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
}

// EMF metrics mean nothing outside Lambda; when enabled they, and the logs, go to stderr: Powertools
// writes through the global console in dev mode, and the global console writes to stderr here.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_DEV = 'true';
globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });

const stop = new AbortController();
process.once('SIGINT', () => {
  stop.abort();
  process.once('SIGINT', () => process.exit(130));
});

const { runMain } = await import('./run.js');
process.exitCode = await runMain(argv, process.env, {
  out,
  err: (text) => process.stderr.write(`${text}\n`),
  errWrite: (text) => process.stderr.write(text),
  isTTY: process.stdout.isTTY === true,
  errIsTTY: process.stderr.isTTY === true,
  signal: stop.signal,
});
