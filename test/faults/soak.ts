/**
 * `npm run soak -- --seeds N` runs N seeded fault scenarios (from --from, default 1);
 * `npm run soak -- --seed N` replays one, printing its steps; `--mode attacher` runs them in
 * attacher mode (kcm decides). Exit 1 if any invariant broke.
 */
import { parseArgs } from 'node:util';

// Metrics in embedded metric format mean nothing outside Lambda.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
import { startRig } from './rig.js';
import { describeFailure } from './report.js';
import { runScenario } from './scenario.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    seeds: { type: 'string', default: '1000' },
    from: { type: 'string', default: '1' },
    steps: { type: 'string', default: '8' },
    mode: { type: 'string', default: 'controller' },
  },
});
if (values.mode !== 'controller' && values.mode !== 'attacher') throw new Error(`--mode is controller or attacher, got ${values.mode}`);
const mode = values.mode;
const single = values.seed === undefined ? undefined : Number(values.seed);
const first = single ?? Number(values.from);
const count = single === undefined ? Number(values.seeds) : 1;
const steps = Number(values.steps);

const rig = startRig();
let failed = 0;
const started = Date.now();
for (let seed = first; seed < first + count; seed++) {
  const result = await runScenario(rig, seed, steps, mode);
  if (single !== undefined) for (const line of result.trace) console.log(line);
  if (result.violations.length > 0) {
    failed += 1;
    for (const line of describeFailure(result)) console.log(line);
  } else if (single !== undefined || seed % 50 === 0) {
    console.log(`seed ${seed}: ok (${result.passes} passes, ${result.kills} killed)`);
  }
}
console.log(`${count} ${mode}-mode seed(s) from ${first}, ${failed} failed, ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exitCode = failed > 0 ? 1 : 0;
