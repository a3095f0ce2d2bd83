/**
 * `npm run audit:planted`: plants each bug of scripts/planted-bugs.ts, one at a time, in one
 * scratch copy of the tree (never the working tree), runs the unit project (unit, reconcile, e2e;
 * stops at the first failure) and the seeded fault suite (`--seeds`, 30 by default for both modes:
 * a quick look; CI runs 200 controller and 40 attacher seeds), and writes
 * which suite killed which bug, and with what, to results/planted/ (each run's output in logs/).
 *
 *   npm run audit:planted -- --only lock-without-version,mass-detach-guard-off --suites unit
 *   npm run audit:planted -- --no-baseline    (skip checking that the unplanted tree passes)
 *   npm run audit:planted -- --only … --report second    (results/planted/second.md, beside another run)
 *   npm run audit:planted -- --suites faults --until-first    (CI's seeds, 200 controller and 40 attacher
 *     unless --seeds says otherwise, both modes side by side; a bug's run stops at its first failing seed)
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { faultsUntilFirst } from './faults-until-first.js';
import { PLANTED_BUGS, type PlantedBug } from './planted-bugs.js';

/** The seeds `npm test` runs (test/faults/suite.ts). */
const CI_SEEDS = { controller: 200, attacher: 40 };

type Suite = 'unit' | 'faults';
interface SuiteResult {
  killed: boolean;
  /** The failing tests, or for the fault suite the failing seeds and their invariants. */
  by: string[];
  seconds: number;
}

const ROOT = path.resolve(import.meta.dirname, '..');
const NOT_COPIED = new Set(['node_modules', '.git', 'results', 'coverage', 'cdk.out', '.sandbox', '.stryker-tmp']);

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    suites: { type: 'string', default: 'unit,faults' },
    /** Seeds of each mode (FAULT_SEEDS): 30 by default, CI's 200 and 40 with --until-first. */
    seeds: { type: 'string', default: process.env.FAULT_SEEDS },
    /** The fault suite stops at a bug's first failing seed, and says which seed and invariant (scripts/faults-until-first.ts). */
    'until-first': { type: 'boolean', default: false },
    'no-baseline': { type: 'boolean', default: false },
    /** The name of the report under results/planted/, so that runs over different bugs can go side by side. */
    report: { type: 'string', default: 'planted' },
  },
});
const suites = values.suites.split(',') as Suite[];
const untilFirst = values['until-first'];
/** Seeds per mode: `--seeds` for both, else a quick 30, else (until the first failure) CI's own set. */
const seedCounts =
  values.seeds !== undefined
    ? { controller: Number(values.seeds), attacher: Number(values.seeds) }
    : untilFirst
      ? CI_SEEDS
      : { controller: 30, attacher: 30 };
const chosen = values.only === undefined ? PLANTED_BUGS : PLANTED_BUGS.filter((bug) => values.only!.split(',').includes(bug.name));

function scratchCopy(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'planted-'));
  cpSync(ROOT, dir, { recursive: true, filter: (source) => !NOT_COPIED.has(path.relative(ROOT, source).split(path.sep)[0]!) });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

/** Every edit of every bug must find its text exactly once, or the list no longer says what it plants. */
function checkStillApplies(dir: string, bugs: PlantedBug[]): void {
  const stale = bugs.flatMap((bug) =>
    bug.edits.flatMap((edit) => {
      const count = readFileSync(path.join(dir, edit.file), 'utf8').split(edit.find).length - 1;
      return count === 1 ? [] : [`${bug.name}: ${edit.file} has ${count} occurrences of ${JSON.stringify(edit.find)}`];
    }),
  );
  if (stale.length > 0) throw new Error(`planted bugs no longer match the code (update scripts/planted-bugs.ts):\n${stale.join('\n')}`);
}

/** Applies the bug's edits in turn and returns how to put every touched file back. */
function plant(dir: string, bug: PlantedBug): () => void {
  const originals = new Map<string, string>();
  for (const edit of bug.edits) {
    const file = path.join(dir, edit.file);
    const text = readFileSync(file, 'utf8');
    if (!originals.has(file)) originals.set(file, text);
    if (text.split(edit.find).length !== 2) throw new Error(`${bug.name}: ${edit.file} no longer holds ${JSON.stringify(edit.find)}`);
    writeFileSync(
      file,
      text.replace(edit.find, () => edit.replace),
    );
  }
  return () => originals.forEach((text, file) => writeFileSync(file, text));
}

interface VitestJson {
  testResults: { name: string; message?: string; assertionResults: { status: string; fullName: string; failureMessages: string[] }[] }[];
}

const OUT = path.join(ROOT, 'results/planted');

async function runSuite(dir: string, suite: Suite, label: string): Promise<SuiteResult> {
  if (suite === 'faults' && untilFirst) {
    const first = await faultsUntilFirst(dir, [
      { mode: 'controller', seeds: seedCounts.controller },
      { mode: 'attacher', seeds: seedCounts.attacher },
    ]);
    writeFileSync(path.join(OUT, 'logs', `${label}-${suite}.log`), first.output);
    return { killed: first.killed, by: first.by, seconds: first.seconds };
  }
  const report = path.join(dir, `.planted-${suite}.json`);
  rmSync(report, { force: true });
  // Generous timeouts: on a shared machine a slow test must not pass for a kill.
  const common = ['run', '--testTimeout', '120000', '--hookTimeout', '120000'];
  const args =
    suite === 'unit' ? [...common, '--project', 'unit', '--bail', '1', '--exclude', 'test/infra/**'] : [...common, '--project', 'faults'];
  const started = Date.now();
  const run = spawnSync(
    path.join(dir, 'node_modules/.bin/vitest'),
    [...args, '--reporter', 'default', '--reporter', 'json', '--outputFile.json', report],
    {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      env: {
        ...process.env,
        FAULT_SEEDS: String(seedCounts.controller),
        FAULT_ATTACHER_SEEDS: String(seedCounts.attacher),
        PATH: `${path.join(dir, 'node_modules/.bin')}:${process.env.PATH}`,
      },
    },
  );
  const seconds = Math.round((Date.now() - started) / 1000);
  const output = `${run.stdout}\n${run.stderr}`;
  writeFileSync(path.join(OUT, 'logs', `${label}-${suite}.log`), output);
  let json: VitestJson | undefined;
  try {
    json = JSON.parse(readFileSync(report, 'utf8')) as VitestJson;
  } catch {
    json = undefined;
  }
  const failedTests = (json?.testResults ?? []).flatMap((file) => [
    ...file.assertionResults.filter((a) => a.status === 'failed').map((a) => `${path.relative(dir, file.name)} › ${a.fullName}`),
    ...(file.assertionResults.length === 0 && file.message ? [`${path.relative(dir, file.name)}: ${file.message.split('\n')[0]}`] : []),
  ]);
  const killed = run.status !== 0;
  if (killed && failedTests.length === 0 && json === undefined) failedTests.push(`vitest exited ${run.status}: ${output.slice(-400)}`);
  return { killed, by: suite === 'faults' && killed ? faultDetails(output, failedTests) : failedTests, seconds };
}

/** The seeds that broke and the first violation of each (test/faults/report.ts prints them). */
function faultDetails(output: string, failedTests: string[]): string[] {
  const seeds = [
    ...output.matchAll(/^seed (\d+)(?: \(([^)]*)\))?: \d+ violation\(s\)[^\n]*\n\s*invariant (\S+) at ([^:]+): ([^\n]*)/gm),
  ].map(
    ([, seed, how, invariant, step, message]) =>
      `seed ${seed}${how === undefined ? '' : ` (${how})`}: invariant ${invariant} at ${step}: ${message!.slice(0, 160)}`,
  );
  return seeds.length > 0 ? seeds : failedTests;
}

function table(rows: { bug: PlantedBug; results: Partial<Record<Suite, SuiteResult>> }[]): string {
  const cell = (r: SuiteResult | undefined) =>
    r === undefined ? 'not run' : r.killed ? `killed: ${r.by.slice(0, 3).join('; ').replaceAll('|', '\\|')}` : 'survived';
  return [
    '| bug | guard | unit + e2e | fault suite |',
    '|---|---|---|---|',
    ...rows.map(({ bug, results }) => `| ${bug.name} | ${bug.invariant} | ${cell(results.unit)} | ${cell(results.faults)} |`),
  ].join('\n');
}

mkdirSync(path.join(OUT, 'logs'), { recursive: true });
const dir = scratchCopy();
try {
  checkStillApplies(dir, chosen);
  if (!values['no-baseline']) {
    for (const suite of suites) {
      const baseline = await runSuite(dir, suite, 'baseline');
      if (baseline.killed) throw new Error(`the unplanted tree already fails ${suite}: ${baseline.by.join('; ')}`);
      console.log(`baseline ${suite}: passes (${baseline.seconds} s)`);
    }
  }
  const rows: { bug: PlantedBug; results: Partial<Record<Suite, SuiteResult>> }[] = [];
  for (const bug of chosen) {
    const unplant = plant(dir, bug);
    const results: Partial<Record<Suite, SuiteResult>> = {};
    try {
      for (const suite of suites) {
        results[suite] = await runSuite(dir, suite, bug.name);
        console.log(
          `${bug.name} / ${suite}: ${results[suite].killed ? 'killed' : 'survived'} (${results[suite].seconds} s) ${results[suite].by.slice(0, 2).join('; ')}`,
        );
      }
    } finally {
      unplant();
    }
    rows.push({ bug, results });
  }
  const killedBy = (suite: Suite) => rows.filter((r) => r.results[suite]?.killed).length;
  const summary = suites.map((suite) => `${suite}: ${killedBy(suite)} of ${rows.length} killed`).join(', ');
  const seedsSaid = `${seedCounts.controller} controller and ${seedCounts.attacher} attacher seeds${untilFirst ? ', until the first failure' : ''}`;
  writeFileSync(path.join(OUT, `${values.report}.json`), `${JSON.stringify({ seeds: seedCounts, untilFirst, rows }, null, 2)}\n`);
  writeFileSync(path.join(OUT, `${values.report}.md`), `# Planted bugs (${seedsSaid})\n\n${summary}\n\n${table(rows)}\n`);
  console.log(`\n${summary}\n\n${table(rows)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
