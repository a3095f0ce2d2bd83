/**
 * `npm run mutation [-- core|reconcile]`: Stryker over lambda/core and lambda/reconcile, one
 * incremental run per folder and stage (stryker.config.js), then the score per folder and file and
 * every surviving mutant in results/mutation/summary.{md,json}. Not part of `npm test`.
 *
 * Stages: the pass is run first against its executor tests (seconds per mutant), then only the
 * mutants those left alive against the e2e worlds (a minute or more per surviving mutant), so the
 * whole folder fits one sitting. A mutant counts as killed when any stage kills it: together the
 * stages are the folder's test suite. `MUTATION_FILES=a.ts,b.ts` measures only those files, each
 * part in its own report, so a long folder can also run in parts; the summary merges every report
 * whose source is still the file's current text.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

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

/** Every report of the folder (its stages and parts, stryker.config.js), oldest first. */
function reportsOf(scope: Scope): Report[] {
  const part = new RegExp(`^${scope}(-[^.]+)?\\.[a-z0-9]+\\.json$`);
  if (!existsSync(OUT)) return [];
  return readdirSync(OUT)
    .filter((name) => part.test(name) && !name.endsWith('-incremental.json'))
    .map((name) => path.join(OUT, name))
    .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)
    .map((file) => JSON.parse(readFileSync(file, 'utf8')) as Report);
}

const keyOf = (m: Mutant) =>
  `${m.location.start.line}:${m.location.start.column}-${m.location.end.line}:${m.location.end.column} ${m.mutatorName} ${m.replacement ?? ''}`;

/**
 * One entry per file, each mutant with its best status over every report: a mutant any stage or
 * part killed is killed. Reports of an older text of the file are left out (their mutants are not
 * this code's).
 */
function merged(scope: Scope): Map<string, Report['files'][string]> {
  const byFile = new Map<string, { source: string; mutants: Map<string, Mutant> }>();
  for (const report of reportsOf(scope))
    for (const [file, entry] of Object.entries(report.files)) {
      if (!existsSync(path.join(ROOT, file)) || readFileSync(path.join(ROOT, file), 'utf8') !== entry.source) continue;
      const mutants = byFile.get(file)?.mutants ?? new Map<string, Mutant>();
      for (const mutant of entry.mutants) {
        const earlier = mutants.get(keyOf(mutant));
        if (earlier === undefined || !DETECTED.has(earlier.status)) mutants.set(keyOf(mutant), mutant);
      }
      byFile.set(file, { source: entry.source, mutants });
    }
  return new Map([...byFile].map(([file, { source, mutants }]) => [file, { source, mutants: [...mutants.values()] }]));
}

/** Stryker mutate ranges (1-based lines, 0-based columns) of the mutants no stage has killed yet. */
function aliveRanges(scope: Scope, only: readonly string[]): string[] {
  return [...merged(scope)]
    .filter(([file]) => only.length === 0 || only.some((f) => file.endsWith(`/${f}`)))
    .flatMap(([file, entry]) =>
      entry.mutants
        .filter((m) => UNDETECTED.has(m.status))
        .map(({ location: { start, end } }) => `${file}:${start.line}:${start.column - 1}-${end.line}:${end.column - 1}`),
    );
}

function summarize(scopes: readonly Scope[]): void {
  const folders = scopes
    .map((scope) => ({ scope, files: [...merged(scope)].sort(([a], [b]) => a.localeCompare(b)) }))
    .filter(({ files }) => files.length > 0)
    .map(({ scope, files }) => ({
      scope,
      total: scoreOf(files.flatMap(([, entry]) => entry.mutants)),
      files: files.map(([file, entry]) => ({ file, ...scoreOf(entry.mutants) })),
      survivors: files.flatMap(([file, entry]) => survivorsOf(file, entry)),
    }));
  writeFileSync(path.join(OUT, 'summary.json'), `${JSON.stringify(folders, null, 2)}\n`);
  const md = folders.flatMap(({ scope, total, files, survivors }) => [
    `## lambda/${scope}: ${total.score}% (${total.killed} killed, ${total.timeout} timed out, ${total.survived} survived, ${total.noCoverage} without coverage)`,
    '',
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
  for (const { scope, total } of folders)
    console.log(`lambda/${scope}: ${total.score}% killed (${total.survived + total.noCoverage} survivors)`);
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

const asked = process.argv.slice(2);
const unknown = asked.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
if (unknown.length > 0) throw new Error(`unknown scope(s) ${unknown.join(', ')}: choose from ${SCOPES.join(', ')}`);
const scopes = asked.length > 0 ? (asked as Scope[]) : SCOPES;
const only = process.env.MUTATION_FILES?.split(',').filter(Boolean) ?? [];
mkdirSync(OUT, { recursive: true });
for (const scope of scopes)
  for (const [index, stage] of STAGES[scope].entries()) {
    if (index === 0) {
      runStage(scope, stage, {});
      continue;
    }
    const alive = aliveRanges(scope, only);
    console.log(`lambda/${scope} stage ${stage}: ${alive.length} mutants left alive by the earlier stages`);
    if (alive.length === 0) continue;
    const rangesFile = path.join(OUT, `${scope}.${stage}-ranges.json`);
    writeFileSync(rangesFile, JSON.stringify(alive));
    runStage(scope, stage, { MUTATION_RANGES: rangesFile });
  }
summarize(SCOPES);
