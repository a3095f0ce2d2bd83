/**
 * `node scripts/parallel.ts a b c`: runs the npm scripts a, b and c at the same time, prints each
 * one's output whole once it ends (in the order given, so logs do not interleave), and exits with
 * the first non-zero status among them. `npm test` runs its checks this way: tsc and the two
 * linters are single-threaded, and one after another they left a core idle for over a minute.
 */
import { spawn } from 'node:child_process';

export interface Finished {
  name: string;
  status: number;
  output: string;
  seconds: number;
}

/** Runs `command args…` with its stdout and stderr kept together, in the order written. */
export function runQuietly(name: string, command: string, args: string[]): Promise<Finished> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', (error) => chunks.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code, signal) =>
      resolve({
        name,
        status: code ?? (signal === null ? 1 : 128),
        output: Buffer.concat(chunks).toString('utf8'),
        seconds: (performance.now() - started) / 1000,
      }),
    );
  });
}

/** Each run's heading and output, in the order given; the exit status is the first failure's. */
export function summarize(finished: Finished[]): { lines: string[]; status: number } {
  const lines = finished.flatMap(({ name, status, output, seconds }) => [
    `> ${name}: ${status === 0 ? 'ok' : `failed (exit ${status})`} in ${seconds.toFixed(1)} s`,
    ...(output.trim() === '' ? [] : [output.trimEnd()]),
  ]);
  return { lines, status: finished.find((f) => f.status !== 0)?.status ?? 0 };
}

if (import.meta.main) {
  const scripts = process.argv.slice(2);
  if (scripts.length === 0) {
    console.error('usage: node scripts/parallel.ts <npm script> [<npm script> …]');
    process.exit(2);
  }
  const { lines, status } = summarize(await Promise.all(scripts.map((script) => runQuietly(script, 'npm', ['run', '--silent', script]))));
  for (const line of lines) console.log(line);
  process.exitCode = status;
}
