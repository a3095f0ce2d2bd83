/**
 * `npm run mutation [-- core|reconcile]`: Stryker over lambda/core and lambda/reconcile, one
 * incremental run per folder (stryker.config.js), then the score per folder and file and every
 * surviving mutant in results/mutation/summary.{md,json}. Not part of `npm test`. `MUTATION_FILES=a.ts,b.ts`
 * measures only those files of the folder, each part in its own report, so a long folder runs in
 * parts that survive an interrupted session; the summary merges the parts.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const SCOPES = ['core', 'reconcile'] as const;
type Scope = (typeof SCOPES)[number];
const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, 'results/mutation');

/** The parts of Stryker's JSON report (mutation-testing-report-schema) read here. */
interface Mutant {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number } };
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

/** The folder's whole run and its parts (stryker.config.js, MUTATION_FILES), oldest first. */
function reportsOf(scope: Scope): Report[] {
  const part = new RegExp(`^${scope}(-.+)?\\.json$`);
  return readdirSync(OUT)
    .filter((name) => part.test(name) && !name.endsWith('-incremental.json'))
    .map((name) => path.join(OUT, name))
    .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)
    .map((file) => JSON.parse(readFileSync(file, 'utf8')) as Report);
}

function summarize(scopes: readonly Scope[]): void {
  const folders = scopes
    .map((scope) => ({ scope, reports: reportsOf(scope) }))
    .filter(({ reports }) => reports.length > 0)
    .map(({ scope, reports }) => {
      // A file measured both in a whole-folder run and in a part (MUTATION_FILES) counts once, from the newer report.
      const byFile = new Map(reports.flatMap((report) => Object.entries(report.files)));
      const files = [...byFile].sort(([a], [b]) => a.localeCompare(b));
      return {
        scope,
        total: scoreOf(files.flatMap(([, entry]) => entry.mutants)),
        files: files.map(([file, entry]) => ({ file, ...scoreOf(entry.mutants) })),
        survivors: files.flatMap(([file, entry]) => survivorsOf(file, entry)),
      };
    });
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

const asked = process.argv.slice(2);
const unknown = asked.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
if (unknown.length > 0) throw new Error(`unknown scope(s) ${unknown.join(', ')}: choose from ${SCOPES.join(', ')}`);
const scopes = asked.length > 0 ? (asked as Scope[]) : SCOPES;
for (const scope of scopes) {
  const run = spawnSync(path.join(ROOT, 'node_modules/.bin/stryker'), ['run'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, MUTATION_SCOPE: scope },
  });
  if (run.status !== 0) throw new Error(`stryker run for lambda/${scope} exited ${run.status}`);
}
summarize(SCOPES);
