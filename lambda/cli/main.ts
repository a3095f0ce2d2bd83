/** `npm run cli -- <command>`: the operator CLI's entry point. */
import { runMain } from './run.js';

// EMF metrics mean nothing outside Lambda and would interleave with the output.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

process.exitCode = await runMain(process.argv.slice(2), process.env, {
  out: (text) => console.log(text),
  err: (text) => console.error(text),
});
