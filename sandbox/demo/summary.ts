/** The closing summary: chapters and their checks, actions, API calls by service, invariants. */
import type { ActionResult } from '../../lambda/reconcile/pass/types.js';
import type { Director } from './director.js';
import { INVARIANT_TITLES } from '../oracle/checks.js';
import { total, type CallCounts } from '../oracle/ledger.js';
import type { Check } from './scene.js';

export interface ChapterOutcome {
  title: string;
  checks: Check[];
  error?: string;
}

export function chapterPassed(outcome: ChapterOutcome): boolean {
  return outcome.error === undefined && outcome.checks.every((c) => c.ok);
}

export function renderSummary(director: Director, chapters: ChapterOutcome[], timing: { storyMs: number; realMs: number }): string[] {
  const checks = chapters.flatMap((c) => c.checks);
  const lines = [
    '',
    `Summary — ${Math.round(timing.storyMs / 60_000)} min of story in ${(timing.realMs / 1000).toFixed(1)} s`,
    `  Chapters     ${chapters.filter(chapterPassed).length}/${chapters.length} passed, ${checks.filter((c) => c.ok).length}/${checks.length} checks`,
    ...chapters
      .filter((c) => !chapterPassed(c))
      .flatMap((c) => [
        `    ✗ ${c.title}${c.error ? `: ${c.error}` : ''}`,
        ...c.checks.filter((x) => !x.ok).map((x) => `      ✗ ${x.name}${x.detail ? ` (${x.detail})` : ''}`),
      ]),
    `  Invocations  ${invocationLine(director)}`,
    `  Actions      ${actionLine(director.invocations.flatMap((i) => i.reports.flatMap((r) => r.results)))}`,
    ...apiLines(director),
    `  Invariants   1–6 of DESIGN §11 checked at ${director.checkpoints} checkpoints: ${director.violations.length === 0 ? 'none broken' : `${director.violations.length} broken`}`,
    ...director.violations
      .slice(0, 10)
      .map((v) => `    ✗ ${v.invariant} (${INVARIANT_TITLES[v.invariant]}) during "${v.step}": ${v.message}`),
  ];
  return lines;
}

function invocationLine(director: Director): string {
  const by = Map.groupBy(director.invocations, (i) => i.handler);
  const failed = director.invocations.filter((i) => i.error !== undefined).length;
  return (
    [...by].map(([name, list]) => `${name} ${list.length}`).join(' · ') +
    ` · passes ${director.invocations.reduce((n, i) => n + i.reports.length, 0)}${failed ? ` · ${failed} failed` : ''}`
  );
}

function actionLine(results: ActionResult[]): string {
  const parts = [...Map.groupBy(results, (r) => r.kind)].map(([kind, list]) => {
    const outcomes = [...Map.groupBy(list, (r) => r.outcome)].map(([o, l]) => `${l.length} ${o}`).join(', ');
    const forced = list.filter((r) => r.forcedTrigger !== undefined).map((r) => r.forcedTrigger);
    return `${kind} ${outcomes}${forced.length ? ` (forced: ${forced.join(', ')})` : ''}`;
  });
  return parts.join(' · ') || 'none';
}

function top(counts: CallCounts, n = 6): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}

function apiLines(director: Director): string[] {
  const { ledger, dynamo } = director.stage;
  return [
    `  API calls    EC2 ${total(ledger.ec2Totals.calls)} (${total(ledger.ec2Totals.throttled)} throttled): ${top(ledger.ec2Totals.calls)}`,
    `               Kubernetes ${total(ledger.kubeTotals.calls)}: ${top(ledger.kubeTotals.calls)}`,
    `               DynamoDB ${total(dynamo.meter.calls)} (${dynamo.meter.conditionalFailures} conditional conflicts): ${top(dynamo.meter.calls)}`,
  ];
}
