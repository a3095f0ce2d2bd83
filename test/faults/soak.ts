/**
 * `npm run soak -- --seeds N` runs N seeded fault scenarios (from --from, default 1);
 * `npm run soak -- --seed N` replays one, printing its steps (`--outcomes`: what each pass did);
 * `--mode attacher` runs them in attacher mode (kcm decides); `--digests FILE` writes each seed's
 * verdict and outcome digest, so two runs (say, one on a loaded machine) can be compared with diff;
 * `--until-first` stops at the first seed that breaks an invariant; `--random-seed N` draws Math.random
 * from a stream seeded with N, so two runs with different N show with diff whether an outcome depends
 * on randomness no seed controls (dynalite's BatchGetItem order, a jitter). Exit 1 if any invariant broke.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

// Metrics in embedded metric format mean nothing outside Lambda.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
import { Random } from '../../sandbox/generate/random.js';
import { startRig } from './rig.js';
import { describeFailure, outcomeDigest } from './report.js';
import { runScenario } from './scenario.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    seeds: { type: 'string', default: '1000' },
    from: { type: 'string', default: '1' },
    steps: { type: 'string', default: '8' },
    mode: { type: 'string', default: 'controller' },
    /** Writes one line per seed (seed, verdict, digest of its outcome log) to this file. */
    digests: { type: 'string' },
    /** Prints the outcome log (each pass's results, each step's EC2 mutations) of a replayed seed. */
    outcomes: { type: 'boolean', default: false },
    /** Stops at the first seed whose invariants break (the planted-bug audit's quick look). */
    'until-first': { type: 'boolean', default: false },
    /** Math.random draws from a stream with this seed (default: the runtime's own, unseeded). */
    'random-seed': { type: 'string' },
  },
});
if (values['random-seed'] !== undefined) {
  const stream = new Random(Number(values['random-seed']));
  Math.random = () => stream.next();
}
if (values.mode !== 'controller' && values.mode !== 'attacher') throw new Error(`--mode is controller or attacher, got ${values.mode}`);
const mode = values.mode;
const single = values.seed === undefined ? undefined : Number(values.seed);
const first = single ?? Number(values.from);
const count = single === undefined ? Number(values.seeds) : 1;
const steps = Number(values.steps);

const rig = startRig();
const digests: string[] = [];
let failed = 0;
let ran = 0;
const started = Date.now();
for (let seed = first; seed < first + count; seed++) {
  const result = await runScenario(rig, seed, steps, mode);
  ran += 1;
  if (single !== undefined) for (const line of values.outcomes ? result.outcomes : result.trace) console.log(line);
  digests.push(`${seed} ${result.violations.length === 0 && result.converged ? 'ok' : 'FAILED'} ${outcomeDigest(result)}`);
  if (result.violations.length > 0) {
    failed += 1;
    for (const line of describeFailure(result)) console.log(line);
    if (values['until-first']) break;
  } else if (single !== undefined || seed % 50 === 0) {
    console.log(`seed ${seed}: ok (${result.passes} passes, ${result.kills} killed)`);
  }
}
if (values.digests !== undefined) writeFileSync(values.digests, `${digests.join('\n')}\n`);
console.log(`${ran} ${mode}-mode seed(s) from ${first}, ${failed} failed, ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exitCode = failed > 0 ? 1 : 0;
