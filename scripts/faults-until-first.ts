/**
 * The fault suite of `npm run audit:planted -- --until-first`: both modes' seeds (CI's set unless
 * `--seeds` says otherwise) through `npm run soak -- --until-first`, the two modes side by side;
 * the first failing seed of either ends both. Reports that seed and the invariant it broke.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export interface FirstFailure {
  killed: boolean;
  /** `<mode> seed N: invariant X at <step>: <message>`, or why the run failed without a seed. */
  by: string[];
  seconds: number;
  output: string;
}

interface ModeRun {
  mode: 'controller' | 'attacher';
  seeds: number;
}

/** The first violation of each failing seed that soak printed (test/faults/report.ts writes them). */
export function failingSeeds(mode: string, output: string): string[] {
  return [...output.matchAll(/^seed (\d+)(?: \(([^)]*)\))?: \d+ violation\(s\)[^\n]*\n\s*invariant (\S+) at ([^:]+): ([^\n]*)/gm)].map(
    ([, seed, , invariant, step, message]) => `${mode} seed ${seed}: invariant ${invariant} at ${step}: ${message!.slice(0, 160)}`,
  );
}

export function faultsUntilFirst(dir: string, runs: ModeRun[]): Promise<FirstFailure> {
  const started = Date.now();
  const children: ChildProcess[] = [];
  /** The runs ended here because the other mode failed first (tsx exits 143 on SIGTERM, not a crash). */
  const stopped = new Set<number>();
  const outputs = runs.map(() => '');
  const finished = runs.map(
    ({ mode, seeds }, i) =>
      new Promise<number>((resolve) => {
        const child = spawn(
          path.join(dir, 'node_modules/.bin/tsx'),
          ['test/faults/soak.ts', '--seeds', String(seeds), '--mode', mode, '--until-first'],
          {
            cwd: dir,
            stdio: ['ignore', 'pipe', 'pipe'],
            env: { ...process.env, PATH: `${path.join(dir, 'node_modules/.bin')}:${process.env.PATH}` },
          },
        );
        children.push(child);
        child.stdout.on('data', (chunk: Buffer) => (outputs[i] += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (outputs[i] += chunk.toString()));
        child.on('close', (code) => {
          // One mode found a failing seed: the other's run has nothing left to add.
          if (code !== 0 && !stopped.has(i))
            children.forEach((other, j) => {
              if (j === i || other.exitCode !== null) return;
              stopped.add(j);
              other.kill();
            });
          resolve(code ?? 0);
        });
      }),
  );
  return Promise.all(finished).then((codes) => {
    const seconds = Math.round((Date.now() - started) / 1000);
    const by = runs.flatMap(({ mode }, i) => failingSeeds(mode, outputs[i]!));
    const crashed = runs.flatMap(({ mode }, i) =>
      codes[i] !== 0 && !stopped.has(i) && failingSeeds(mode, outputs[i]!).length === 0 && !/^\d+ \w+-mode seed/m.test(outputs[i]!)
        ? [`${mode}: soak exited ${codes[i]}: ${outputs[i]!.slice(-400)}`]
        : [],
    );
    return { killed: by.length > 0 || crashed.length > 0, by: [...by, ...crashed], seconds, output: outputs.join('\n') };
  });
}
