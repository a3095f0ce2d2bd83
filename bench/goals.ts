/**
 * The goals table of issue 14: each figure as measured by this run beside the figure before the
 * work (as the issue measured it) and the goal. A row this run did not measure says so.
 */
import { EVENT_BATCHING_WINDOW } from '../infra/constructs/event-queue.js';
import { passesAt } from '../sandbox/dead-instance.js';
import type { BundleFigures } from './bundles.js';
import { coverageRows } from './coverage-goals.js';
import type { BenchFigures, GoalRow } from './figures.js';
import { FUNCTION_TIMEOUT_MS, type PassFigures, type SizeFigures } from './size.js';

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const passes = (f: SizeFigures): PassFigures[] =>
  [f.takeover, f.steadyAtSync, f.steadyAtSyncNoRtt, f.steadyBetweenSyncs, ...(f.otherPageSizes ?? []).map((o) => o.steadyAtSync)].filter(
    (p): p is PassFigures => p !== undefined,
  );
const steadyPasses = (f: SizeFigures) => passes(f).filter((p) => p !== f.takeover);
const peakMb = (f: SizeFigures) => Math.max(...passes(f).map((p) => p.peakRssMb));
const finished = (p: PassFigures) => !p.timedOut && p.error === undefined;
const notRun = (figure: string, today: string, goal: string): GoalRow => ({ figure, today, goal, measured: 'not run in this invocation' });

/** Calls by service, summed over the pass's invocations. */
function callTotals(p: PassFigures): string {
  const by = (service: string) => p.calls.filter((r) => r.service === service).reduce((n, r) => n + r.calls, 0);
  return `Kubernetes ${by('Kubernetes')}, EC2 ${by('EC2')}, DynamoDB ${by('DynamoDB')} calls`;
}

function takeoverMeasured(p: PassFigures): string {
  const outcome = p.timedOut ? `> ${s(p.wallMs)} (killed at the cap)` : p.error ? `failed: ${p.error}` : s(p.wallMs);
  const left = p.takeoverLeft === undefined ? '' : `, ${p.takeoverLeft} volumes still left`;
  return `${outcome} in ${p.invocations} invocation(s)${left}; ${callTotals(p)} (${p.dynamo.itemsWritten} items written); peak ${p.peakRssMb} MB`;
}

function boundRatio(p: PassFigures): number {
  const bounded = p.calls.filter((r) => r.lowerBound !== undefined);
  const bound = bounded.reduce((n, r) => n + (r.lowerBound ?? 0), 0);
  return bounded.reduce((n, r) => n + r.calls, 0) / Math.max(1, bound);
}

export function goalRows(figures: BenchFigures): GoalRow[] {
  const at = (nodes: number) => figures.sizes.find((f) => f.nodes === nodes);
  const five = at(5000);
  const ten = at(10000);
  const latency = figures.sizes.find((f) => f.latency)?.latency;
  const rows: GoalRow[] = [];
  const passRow = 'full pass, 5,000 nodes, steady state, with per-request latency injected in the local servers';
  if (five) {
    const p = five.steadyAtSync;
    rows.push({
      figure: `${passRow} (${p.rttMs} ms per request, page size ${five.pageSize}, sync due)`,
      today: '13–22 s',
      goal: '≤ 5 s',
      measured: `${s(p.wallMs)} (between syncs ${s(five.steadyBetweenSyncs.wallMs)}${five.steadyAtSyncNoRtt ? `; no latency ${s(five.steadyAtSyncNoRtt.wallMs)}` : ''})`,
      met: finished(p) && p.wallMs <= 5000,
    });
    const cpu = steadyPasses(five).map((q) => q.cpuMs);
    rows.push({
      figure: 'controller CPU per full pass at 5,000 nodes (its own process)',
      today: '5–11 s',
      goal: '≤ 2 s',
      measured: `${s(Math.min(...cpu))}–${s(Math.max(...cpu))} over ${cpu.length} steady passes`,
      met: Math.max(...cpu) <= 2000,
    });
  } else {
    rows.push(notRun(passRow, '13–22 s', '≤ 5 s'), notRun('controller CPU per full pass at 5,000 nodes', '5–11 s', '≤ 2 s'));
  }
  rows.push({
    figure: 'peak memory (resident, controller process) at 5,000 nodes / 10,000 nodes',
    today: '0.8–1.1 GB / —',
    goal: '≤ 400 MB / ≤ 800 MB',
    measured: `${five ? `${peakMb(five)} MB` : 'not run'} / ${ten ? `${peakMb(ten)} MB` : 'not run'}`,
    ...(five && ten ? { met: peakMb(five) <= 400 && peakMb(ten) <= 800 } : {}),
  });
  if (ten) {
    const p = ten.steadyAtSync;
    rows.push({
      figure: `full pass at 10,000 nodes, ${ten.counts.pods} pods, ${ten.counts.pvs} volumes (${p.rttMs} ms per request)`,
      today: 'not run',
      goal: 'completes in one invocation, ≤ 15 s',
      measured: finished(p)
        ? `${s(p.wallMs)} in ${p.invocations} invocation, CPU ${s(p.cpuMs)}, peak ${p.peakRssMb} MB; ${callTotals(p)}`
        : p.timedOut
          ? `> ${s(p.wallMs)} (cap)`
          : `failed: ${p.error}`,
      met: finished(p) && p.wallMs <= 15_000,
    });
  } else rows.push(notRun('full pass at 10,000 nodes, 100,000 pods, 40,000 volumes', 'not run', 'completes in one invocation, ≤ 15 s'));
  const takeover = five?.takeover;
  const takeoverFigure = 'takeover at 5,000 nodes (seeding, verification, reports)';
  const takeoverToday = 'not run (estimated 3.5–5 min); last session ~400 s of sequential seeding, no resume';
  rows.push(
    takeover
      ? {
          figure: `${takeoverFigure}; ${takeover.rttMs} ms per request, ${FUNCTION_TIMEOUT_MS / 1000} s per invocation`,
          today: takeoverToday,
          goal: `measured; within the function timeout (${FUNCTION_TIMEOUT_MS / 1000} s) or resumes without repeating work`,
          measured: takeoverMeasured(takeover),
          met: finished(takeover) && takeover.takeoverLeft === undefined,
        }
      : notRun(takeoverFigure, takeoverToday, 'within the function timeout or resumes'),
  );
  rows.push(
    latency
      ? {
          figure: 'event → AttachVolume: sequential round trips (Kubernetes + EC2) / DynamoDB calls',
          today: '8 / 3',
          goal: '≤ 4 / ≤ 2',
          measured: `${latency.sequentialRoundTrips} / ${latency.dynamoCallsBeforeAttach} (traced: requests in flight together count once)`,
          met: latency.sequentialRoundTrips <= 4 && latency.dynamoCallsBeforeAttach <= 2,
        }
      : notRun('event → AttachVolume round trips / DynamoDB calls', '8 / 3', '≤ 4 / ≤ 2'),
  );
  const attacher = figures.attacherLatency;
  const attacherRow = 'event → AttachVolume in attacher mode: sequential round trips (Kubernetes + EC2) / DynamoDB calls';
  rows.push(
    attacher
      ? {
          figure: attacherRow,
          today: '9 / 4 (traced)',
          goal: '≤ 4 / ≤ 2',
          measured: `${attacher.sequentialRoundTrips} / ${attacher.dynamoCallsBeforeAttach} (traced: requests in flight together count once)`,
          met: attacher.sequentialRoundTrips <= 4 && attacher.dynamoCallsBeforeAttach <= 2,
        }
      : notRun(attacherRow, '9 / 4 (traced)', '≤ 4 / ≤ 2'),
  );
  const windowS = EVENT_BATCHING_WINDOW.toSeconds();
  rows.push({
    figure: "end-to-end trigger delay added by our queueing (the event queues' batching window, batches of 100)",
    today: 'up to 5 s',
    goal: '≤ 1 s, keeping per-batch dedupe',
    measured: `up to ${windowS} s (configured; the stack test asserts it)`,
    met: windowS <= 1,
  });
  rows.push(coldInitRow(figures.bundles ?? []));
  rows.push(...deadInstanceRows(figures));
  if (five) {
    const ratio = boundRatio(five.steadyAtSync);
    rows.push({
      figure: `steady-state calls per pass ÷ lower bound (5,000 nodes, page size ${five.pageSize})`,
      today: '1.00 (page size 500)',
      goal: 'stays 1.00',
      measured: ratio.toFixed(2),
      met: ratio <= 1.0001,
    });
  } else rows.push(notRun('steady-state calls per pass ÷ lower bound', '1.00', 'stays 1.00'));
  return rows;
}

const DEAD_INSTANCE_BEFORE = '6 min (no taint: maxWaitForUnmount) / 123 s (taint, then the next full passes)';
const DEAD_INSTANCE_GOAL = 'within one targeted pass of the EC2 event';

/**
 * Issue 12, per mode: instance terminated → replacement attached. Met when no full pass was
 * needed: in attacher mode the EC2 event's pass was running when it attached; in controller mode
 * (nothing to attach before the replacement pod exists) the replacement's `Scheduled` pass did.
 */
function deadInstanceRows(figures: BenchFigures): GoalRow[] {
  return (['controller', 'attacher'] as const).map((mode) => {
    const figure = `instance terminated → replacement attached (${mode} mode)`;
    const f = figures.deadInstance?.find((d) => d.mode === mode && d.state === 'terminated' && d.forwardScheduled);
    if (f === undefined) return notRun(figure, DEAD_INSTANCE_BEFORE, DEAD_INSTANCE_GOAL);
    const by = passesAt(f);
    const ours = mode === 'attacher' ? by.includes('EC2 event (terminated)') : by.length > 0;
    return {
      figure,
      today: DEAD_INSTANCE_BEFORE,
      goal: DEAD_INSTANCE_GOAL,
      measured:
        f.storyMs === undefined
          ? 'not attached'
          : `${s(f.storyMs)} story time (40 s of it upstream's NotReady wait), ${s(f.wallMs ?? 0)} wall; ${f.passes.length} passes (${f.passes.map((p) => p.trigger).join(', ')}), ${f.kubeRequests} Kubernetes requests, ${f.ec2Calls} EC2 calls`,
      met: f.storyMs !== undefined && ours,
    };
  });
}

export function goalTable(figures: BenchFigures): string[] {
  const mark = (row: GoalRow) => (row.met === undefined ? '–' : row.met ? 'yes' : 'no');
  const bundles = goalRows(figures).find((r) => r.figure.startsWith('cold init'));
  return [
    '## Goals (issue 30): before = the complete pass, after = the covered pass, same run',
    '',
    '| figure | before | goal | after | met |',
    '| --- | --- | --- | --- | --- |',
    ...coverageRows(figures).map((r) => `| ${r.figure} | ${r.today} | ${r.goal} | ${r.measured} | ${mark(r)} |`),
    ...(bundles
      ? [`| handler cold init (import) | 219 ms (the issue's figure) | ≤ 120 ms | ${bundles.measured} | ${mark(bundles)} |`]
      : []),
    '',
    '## Goals (issue 14)',
    '',
    '| figure | before | goal | measured | met |',
    '| --- | --- | --- | --- | --- |',
    ...goalRows(figures).map((r) => `| ${r.figure} | ${r.today} | ${r.goal} | ${r.measured} | ${mark(r)} |`),
    '',
  ];
}

const range = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} ms`;

/**
 * The shipped bundles against the plain esbuild bundles of the same entries, imported in the same
 * run. Init CPU is the figure the goal is judged on: the wall time grows with the machine's load.
 */
function coldInitRow(bundles: BundleFigures[]): GoalRow {
  const figure = 'cold init of a handler bundle (median of 5 imports, CPU)';
  const shipped = bundles.filter((b) => b.name !== 'empty' && b.build === 'shipped');
  const plain = bundles.filter((b) => b.name !== 'empty' && b.build === 'plain');
  if (!shipped.length) return notRun(figure, '320–410 ms', '≤ 120 ms');
  const empty = bundles.find((b) => b.name === 'empty');
  const mb = (bs: BundleFigures[]) => (Math.max(...bs.map((b) => b.bytes)) / 1e6).toFixed(2);
  const before = plain.length ? `; plain esbuild bundle in the same run: CPU ${range(plain.map((b) => b.initCpuMs))}, ${mb(plain)} MB` : '';
  return {
    figure,
    today: '320–410 ms',
    goal: '≤ 120 ms',
    // The empty handler's init beside it: on a loaded machine every figure grows with it.
    measured: `CPU ${range(shipped.map((b) => b.initCpuMs))}, wall ${range(shipped.map((b) => b.initMs))} at load ${shipped[0]?.loadAverage.toFixed(1) ?? '?'}, ${mb(shipped)} MB${before} (empty handler ${empty?.initCpuMs.toFixed(0) ?? '?'} ms CPU)`,
    met: Math.max(...shipped.map((b) => b.initCpuMs)) <= 120,
  };
}
