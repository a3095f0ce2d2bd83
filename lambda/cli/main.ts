/** `npm run cli -- <command>`: the operator CLI's entry point. */
import { parseCli, USAGE, UsageError } from './args.js';
import { EXIT, runCli } from './run.js';

// EMF metrics mean nothing outside Lambda and would interleave with the output.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

const io = { out: (text: string) => console.log(text), err: (text: string) => console.error(text) };

try {
  process.exitCode = await runCli(parseCli(process.argv.slice(2)), process.env, io);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  io.err(`${error.message}\n\n${USAGE.help}`);
  process.exitCode = EXIT.error;
}
