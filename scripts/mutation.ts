/**
 * `npm run mutation [-- core|reconcile]`: Stryker over lambda/core and lambda/reconcile, one
 * incremental run per folder and stage (stryker.config.js), then the score per folder and file and
 * every surviving mutant in results/mutation/summary.{md,json}. Not part of `npm test`.
 *
 * Stages: the pass is run first against its executor tests (seconds per mutant), then only the
 * mutants those left alive against the e2e worlds (a minute or more per surviving mutant), so the
 * whole folder fits one sitting. A mutant counts as killed when any stage kills it: together the
 * stages are the folder's test suite. `MUTATION_SAMPLE=N` sends only a seeded random sample of N of
 * the alive mutants to the later stages: the measured score is then a lower bound, and the summary
 * adds the score estimated from the sample, with its 95% interval. `MUTATION_FILES=a.ts,b.ts` measures only those files, each
 * part in its own report, so a long folder can also run in parts; the summary merges every report
 * whose source is still the file's current text. `npm run mutation -- --summary` rewrites the
 * summary from the reports there, running nothing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { mutantId, mutantKey } from './mutant-id.ts';

const SCOPES = ['core', 'reconcile'] as const;
type Scope = (typeof SCOPES)[number];
/** The test stages of each folder, cheapest first (vitest.mutation.config.ts names their tests). */
const STAGES: Record<Scope, readonly string[]> = { core: ['all'], reconcile: ['unit', 'e2e'] };
const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, 'results/mutation');

/** The parts of Stryker's JSON report (mutation-testing-report-schema) read here. */
interface Mutant {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}
interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
}

interface Score {
  killed: number;
  survived: number;
  noCoverage: number;
  timeout: number;
  errors: number;
  score: number;
}

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

function scoreOf(mutants: Mutant[]): Score {
  const count = (status: string) => mutants.filter((m) => m.status === status).length;
  const detected = mutants.filter((m) => DETECTED.has(m.status)).length;
  const valid = detected + mutants.filter((m) => UNDETECTED.has(m.status)).length;
  return {
    killed: count('Killed'),
    survived: count('Survived'),
    noCoverage: count('NoCoverage'),
    timeout: count('Timeout'),
    errors: count('RuntimeError') + count('CompileError'),
    score: valid === 0 ? 100 : Math.round((1000 * detected) / valid) / 10,
  };
}

function survivorsOf(file: string, entry: Report['files'][string]): string[] {
  const lines = entry.source.split('\n');
  return entry.mutants
    .filter((m) => UNDETECTED.has(m.status))
    .sort((a, b) => a.location.start.line - b.location.start.line || a.location.start.column - b.location.start.column)
    .map((m) => {
      const { line, column } = m.location.start;
      const original = (lines[line - 1] ?? '').trim().slice(0, 120);
      const replacement = (m.replacement ?? '').replaceAll('\n', ' ').slice(0, 80);
      return `${file}:${line}:${column} ${m.mutatorName}${m.status === 'NoCoverage' ? ' (no coverage)' : ''}: \`${original}\` → \`${replacement}\``;
    });
}

/** Every report of the folder (its stages and parts, stryker.config.js), oldest first, with its stage. */
function reportsOf(scope: Scope): { stage: string; report: Report }[] {
  const part = new RegExp(`^${scope}(-[^.]+)?\\.([a-z0-9]+)\\.json$`);
  if (!existsSync(OUT)) return [];
  return readdirSync(OUT)
    .filter((name) => part.test(name) && !name.endsWith('-incremental.json'))
    .map((name) => ({ name, file: path.join(OUT, name) }))
    .sort((a, b) => statSync(a.file).mtimeMs - statSync(b.file).mtimeMs)
    .map(({ name, file }) => ({ stage: part.exec(name)![2]!, report: JSON.parse(readFileSync(file, 'utf8')) as Report }));
}

const keyOf = (m: Mutant) => mutantKey(m.location, m.mutatorName, m.replacement);

const sampleFile = (scope: Scope) => path.join(OUT, `${scope}-sample.json`);
const sampleOf = (scope: Scope): Sample | undefined =>
  existsSync(sampleFile(scope)) ? (JSON.parse(readFileSync(sampleFile(scope), 'utf8')) as Sample) : undefined;

/**
 * One entry per file, each mutant with its best status over every report: a mutant any stage or
 * part killed is killed. Reports of an older text of the file are left out (their mutants are not
 * this code's).
 */
function merged(scope: Scope): Map<string, Report['files'][string]> {
  const byFile = new Map<string, { source: string; mutants: Map<string, Mutant> }>();
  const sample = sampleOf(scope);
  const sampled = new Set(sample?.ids);
  for (const { stage, report } of reportsOf(scope))
    for (const [file, entry] of Object.entries(report.files)) {
      if (!existsSync(path.join(ROOT, file)) || readFileSync(path.join(ROOT, file), 'utf8') !== entry.source) continue;
      const mutants = byFile.get(file)?.mutants ?? new Map<string, Mutant>();
      // A sampled stage ran only its sample (scripts/stryker-vitest5.ts): its other mutants were not tested.
      const counted = sample?.stage === stage ? entry.mutants.filter((m) => sampled.has(mutantId(file, keyOf(m)))) : entry.mutants;
      for (const mutant of counted) {
        const earlier = mutants.get(keyOf(mutant));
        if (earlier === undefined || !DETECTED.has(earlier.status)) mutants.set(keyOf(mutant), mutant);
      }
      byFile.set(file, { source: entry.source, mutants });
    }
  return new Map([...byFile].map(([file, { source, mutants }]) => [file, { source, mutants: [...mutants.values()] }]));
}

interface Alive {
  /** file and mutant key (keyOf), to find it again in a later report */
  id: string;
  /** Its Stryker mutate range (1-based lines, 0-based columns). */
  range: string;
}

/** The mutants no stage has killed yet. */
function aliveMutants(scope: Scope, only: readonly string[]): Alive[] {
  return [...merged(scope)]
    .filter(([file]) => only.length === 0 || only.some((f) => file.endsWith(`/${f}`)))
    .flatMap(([file, entry]) =>
      entry.mutants
        .filter((m) => UNDETECTED.has(m.status))
        .map((m) => ({
          id: mutantId(file, keyOf(m)),
          range: `${file}:${m.location.start.line}:${m.location.start.column - 1}-${m.location.end.line}:${m.location.end.column - 1}`,
        })),
    );
}

/** A seeded shuffle (mulberry32), so a sample is the same run after run and its incremental file stays useful. */
function drawSample<T>(items: readonly T[], size: number, seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const shuffled = [...items];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  return shuffled.slice(0, size);
}

/** What a sampled stage was sent: the sampled mutants' ids out of how many were alive. */
interface Sample {
  stage: string;
  population: number;
  ids: string[];
}

/** Wilson's 95% interval for a proportion of `hits` in `n`. */
function wilson(hits: number, n: number): [number, number] {
  const z = 1.96;
  const p = hits / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/**
 * The folder's score had the whole alive population met the sampled stage: the mutants killed
 * before it, plus its kill rate in the sample times the population, with the 95% interval.
 */
function estimate(files: [string, Report['files'][string]][], total: Score, sample: Sample): string {
  const now = new Map<string, string>(
    files.flatMap(([file, entry]) => entry.mutants.map((m): [string, string] => [mutantId(file, keyOf(m)), m.status])),
  );
  const killed = sample.ids.filter((id) => DETECTED.has(now.get(id) ?? '')).length;
  const valid = total.killed + total.timeout + total.survived + total.noCoverage;
  const before = total.killed + total.timeout - killed;
  const score = (rate: number) => Math.round((1000 * (before + rate * sample.population)) / valid) / 10;
  const [low, high] = wilson(killed, sample.ids.length);
  return `estimated ${score(killed / sample.ids.length)}% (95% interval ${score(low)}–${score(high)}%): stage ${sample.stage} killed ${killed} of a random sample of ${sample.ids.length} of the ${sample.population} mutants the earlier stages left alive`;
}

function summarize(scopes: readonly Scope[]): void {
  const folders = scopes
    .map((scope) => ({ scope, files: [...merged(scope)].sort(([a], [b]) => a.localeCompare(b)) }))
    .filter(({ files }) => files.length > 0)
    .map(({ scope, files }) => ({
      scope,
      total: scoreOf(files.flatMap(([, entry]) => entry.mutants)),
      merged: files,
      files: files.map(([file, entry]) => ({ file, ...scoreOf(entry.mutants) })),
      survivors: files.flatMap(([file, entry]) => survivorsOf(file, entry)),
    }))
    .map(({ merged: files, ...folder }) => {
      const sample = sampleOf(folder.scope);
      return { ...folder, estimated: sample === undefined ? undefined : estimate(files, folder.total, sample) };
    });
  writeFileSync(path.join(OUT, 'summary.json'), `${JSON.stringify(folders, null, 2)}\n`);
  const md = folders.flatMap(({ scope, total, files, survivors, estimated }) => [
    `## lambda/${scope}: ${total.score}% (${total.killed} killed, ${total.timeout} timed out, ${total.survived} survived, ${total.noCoverage} without coverage)`,
    '',
    ...(estimated === undefined ? [] : [`Measured on a sample, so the score above is a lower bound: ${estimated}.`, '']),
    '| file | score | killed | survived | no coverage |',
    '|---|---|---|---|---|',
    ...files.map((f) => `| ${f.file} | ${f.score}% | ${f.killed + f.timeout} | ${f.survived} | ${f.noCoverage} |`),
    '',
    '### Surviving mutants',
    '',
    ...survivors.map((s) => `- ${s}`),
    '',
  ]);
  writeFileSync(path.join(OUT, 'summary.md'), `# Mutation testing\n\n${md.join('\n')}`);
  for (const { scope, total, estimated } of folders)
    console.log(
      `lambda/${scope}: ${total.score}% killed (${total.survived + total.noCoverage} survivors)${estimated === undefined ? '' : `; ${estimated}`}`,
    );
  console.log(`summary: ${path.relative(ROOT, path.join(OUT, 'summary.md'))}`);
}

function runStage(scope: Scope, stage: string, env: NodeJS.ProcessEnv): void {
  const run = spawnSync(path.join(ROOT, 'node_modules/.bin/stryker'), ['run'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, ...env, MUTATION_SCOPE: scope, MUTATION_STAGE: stage },
  });
  if (run.status !== 0) throw new Error(`stryker run for lambda/${scope} (stage ${stage}) exited ${run.status}`);
}

// `--summary`: rewrite the summary from the reports already there, running nothing.
const summaryOnly = process.argv.includes('--summary');
const asked = process.argv.slice(2).filter((arg) => arg !== '--summary');
const unknown = asked.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
if (unknown.length > 0) throw new Error(`unknown scope(s) ${unknown.join(', ')}: choose from ${SCOPES.join(', ')}`);
const scopes = summaryOnly ? [] : asked.length > 0 ? (asked as Scope[]) : SCOPES;
const only = process.env.MUTATION_FILES?.split(',').filter(Boolean) ?? [];
const sampleSize = process.env.MUTATION_SAMPLE === undefined ? undefined : Number(process.env.MUTATION_SAMPLE);
mkdirSync(OUT, { recursive: true });
for (const scope of scopes) {
  if (existsSync(sampleFile(scope))) rmSync(sampleFile(scope));
  for (const [index, stage] of STAGES[scope].entries()) {
    if (index === 0) {
      runStage(scope, stage, {});
      continue;
    }
    const alive = aliveMutants(scope, only);
    const sent =
      sampleSize === undefined || sampleSize >= alive.length
        ? alive
        : drawSample(alive, sampleSize, Number(process.env.MUTATION_SAMPLE_SEED ?? 1));
    console.log(`lambda/${scope} stage ${stage}: ${sent.length} of the ${alive.length} mutants the earlier stages left alive`);
    if (sent.length === 0) continue;
    if (sent.length < alive.length)
      writeFileSync(sampleFile(scope), JSON.stringify({ stage, population: alive.length, ids: sent.map((m) => m.id) } satisfies Sample));
    const rangesFile = path.join(OUT, `${scope}.${stage}-ranges.json`);
    writeFileSync(rangesFile, JSON.stringify(sent.map((m) => m.range)));
    const onlyFile = path.join(OUT, `${scope}.${stage}-only.json`);
    writeFileSync(onlyFile, JSON.stringify(sent.map((m) => m.id)));
    runStage(scope, stage, { MUTATION_RANGES: rangesFile, ...(sent.length < alive.length ? { MUTATION_ONLY: onlyFile } : {}) });
  }
}
summarize(SCOPES);
