/**
 * Issue 30's goals table: each figure before (today's complete pass, measured in the same run) and
 * after (the covered pass a live watcher makes possible), and a day of passes at 5,000 nodes
 * computed from the measured passes. The watcher's own always-on cost is stated on its own row: it
 * runs either way (issue 29), so it is in both totals.
 */
import { FULL_PASS_SIZE, WATCHER_SIZE } from '../infra/function-sizes.js';
import { DEFAULT_COVERAGE } from '../lambda/core/coverage.js';
import type { BenchFigures, GoalRow } from './figures.js';
import type { PassFigures, SizeFigures } from './size.js';

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const PASSES_A_DAY = 1440;
/** Complete passes a day while a watcher covers: one per safety period (COMPLETE_PASS_SECONDS). */
export const COMPLETE_A_DAY = Math.ceil((PASSES_A_DAY * 60_000) / DEFAULT_COVERAGE.completeEveryMs);
const gb = (mb: number) => mb / 1024;

export const callCount = (p: PassFigures) => p.calls.reduce((n, r) => n + r.calls, 0);
const fig = (p: PassFigures | undefined) =>
  p === undefined
    ? 'not run'
    : `${s(p.wallMs)}, CPU ${s(p.cpuMs)}, peak ${p.peakRssMb} MB, ${callCount(p)} calls${p.covered === true ? '' : ' (not covered!)'}`;
const before = (p: PassFigures | undefined) =>
  p === undefined ? 'not run' : `${s(p.wallMs)}, CPU ${s(p.cpuMs)}, peak ${p.peakRssMb} MB (this run)`;

/** GB-s and calls of a day of passes: today's (every pass complete) and with covered passes. */
export function dayOfPasses(f: Pick<SizeFigures, 'steadyAtSync' | 'coveredAtSync'>) {
  const gbs = (p: PassFigures) => (p.wallMs / 1000) * gb(FULL_PASS_SIZE.memoryMb);
  const complete = f.steadyAtSync;
  const covered = f.coveredAtSync;
  const today = { gbs: PASSES_A_DAY * gbs(complete), calls: PASSES_A_DAY * callCount(complete) };
  if (covered === undefined) return { today };
  const coveredPasses = PASSES_A_DAY - COMPLETE_A_DAY;
  return {
    today,
    after: {
      gbs: COMPLETE_A_DAY * gbs(complete) + coveredPasses * gbs(covered),
      calls: COMPLETE_A_DAY * callCount(complete) + coveredPasses * callCount(covered),
    },
  };
}

/** The watcher is always on: one invocation at a time (two during a handover minute), billed for its time at its size. */
export const WATCHER_GBS_A_DAY = 86_400 * gb(WATCHER_SIZE.memoryMb);

export function coverageRows(figures: BenchFigures): GoalRow[] {
  const at = (nodes: number) => figures.sizes.find((f) => f.nodes === nodes);
  const five = at(5000);
  const ten = at(10000);
  const rows: GoalRow[] = [];
  const c5 = five?.coveredAtSync;
  rows.push({
    figure: `steady full pass at 5,000 nodes, ${five?.steadyAtSync.rttMs ?? 20} ms RTT, sync due (before: complete; after: covered)`,
    today: before(five?.steadyAtSync),
    goal: '≤ 3 s',
    measured: fig(c5),
    ...(c5 ? { met: c5.covered === true && c5.wallMs <= 3000 } : {}),
  });
  rows.push({
    figure: 'controller CPU per 5,000-node pass',
    today: five ? `${s(five.steadyAtSync.cpuMs)} (this run)` : 'not run',
    goal: '≤ 1.5 s',
    measured: c5 ? `${s(c5.cpuMs)} (covered; no latency ${s(five?.coveredAtSyncNoRtt?.cpuMs ?? 0)})` : 'not run',
    ...(c5 ? { met: c5.cpuMs <= 1500 } : {}),
  });
  const peak = (f: SizeFigures | undefined, p: (f: SizeFigures) => PassFigures | undefined) => {
    const q = f === undefined ? undefined : p(f);
    return q === undefined ? 'not run' : `${q.peakRssMb} MB`;
  };
  rows.push({
    figure: 'peak memory (resident, controller process), 5,000 / 10,000 nodes',
    today: `${peak(five, (f) => f.steadyAtSync)} / ${peak(ten, (f) => f.steadyAtSync)} (this run)`,
    goal: '≤ 400 / ≤ 800 MB',
    measured: `${peak(five, (f) => f.coveredAtSync)} / ${peak(ten, (f) => f.coveredAtSync)} (covered, a fresh process)`,
    ...(c5 && ten?.coveredAtSync ? { met: c5.peakRssMb <= 400 && ten.coveredAtSync.peakRssMb <= 800 } : {}),
  });
  rows.push({
    figure: '10,000 nodes, one pass',
    today: before(ten?.steadyAtSync),
    goal: '≤ 8 s',
    measured: fig(ten?.coveredAtSync),
    ...(ten?.coveredAtSync ? { met: ten.coveredAtSync.wallMs <= 8000 } : {}),
  });
  rows.push(dayRow(five));
  return rows;
}

function dayRow(five: SizeFigures | undefined): GoalRow {
  const figure = `a day of passes at 5,000 nodes: Lambda GB-s and API calls (1,440 passes at ${FULL_PASS_SIZE.memoryMb} MB; after: ${COMPLETE_A_DAY} complete + ${PASSES_A_DAY - COMPLETE_A_DAY} covered)`;
  if (five === undefined) return { figure, today: 'not run', goal: 'halved', measured: 'not run' };
  const day = dayOfPasses(five);
  const k = (n: number) => `${Math.round(n).toLocaleString('en')}`;
  const watcher = `; the watcher, always on either way: ${k(WATCHER_GBS_A_DAY)} GB-s (${WATCHER_SIZE.memoryMb} MB × 86,400 s)`;
  return {
    figure,
    today: `${k(day.today.gbs)} GB-s, ${k(day.today.calls)} calls (this run)`,
    goal: 'halved',
    measured: day.after ? `${k(day.after.gbs)} GB-s, ${k(day.after.calls)} calls${watcher}` : 'not run',
    ...(day.after ? { met: day.after.gbs <= day.today.gbs / 2 && day.after.calls <= day.today.calls / 2 } : {}),
  };
}
