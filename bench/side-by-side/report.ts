/**
 * The side-by-side figures as the README's table: one row per measured figure, one column per
 * implementation, and whether the issue's goals are met (the watcher within 100 ms of the
 * sidecar at p50 and 300 ms at p99; the rolling update within 1.2× of the sidecar's total).
 */
import type { Implementation } from './implementations.js';
import type { LatencyRow, Percentiles, RollingRow, SideBySideFigures } from './run.js';

const NAMES: Record<Implementation, string> = {
  watcher: 'ours, watcher',
  today: "ours, today's event path",
  sidecar: 'csi-attacher sidecar',
  'sidecar-batching': 'csi-attacher sidecar (driver batching on)',
};

const GOAL = { p50Ms: 100, p99Ms: 300, rolling: 1.2 };

const ms = (n: number) => (Number.isNaN(n) ? '–' : n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${n.toFixed(0)} ms`);
const pair = (p: Percentiles | undefined) => (p === undefined ? '–' : `${ms(p.p50)} / ${ms(p.p99)} (${p.samples})`);

function latencyGoal(watcher: Percentiles | undefined, sidecar: Percentiles | undefined): string {
  if (watcher === undefined || sidecar === undefined) return '–';
  const d50 = watcher.p50 - sidecar.p50;
  const d99 = watcher.p99 - sidecar.p99;
  const met = d50 <= GOAL.p50Ms && d99 <= GOAL.p99Ms;
  return `${met ? 'met' : 'not met'} (p50 ${d50 >= 0 ? '+' : ''}${d50.toFixed(0)} ms, p99 ${d99 >= 0 ? '+' : ''}${d99.toFixed(0)} ms)`;
}

function latencyRows(rows: LatencyRow[], mode: LatencyRow['mode'], columns: Implementation[]): string[] {
  const of = (i: Implementation) => rows.find((r) => r.mode === mode && r.implementation === i);
  const figure = (label: string, pick: (r: LatencyRow) => Percentiles | undefined, goal: boolean) =>
    `| ${label} | ${columns.map((i) => pair(of(i) && pick(of(i) as LatencyRow))).join(' | ')} | ${
      goal ? latencyGoal(of('watcher') && pick(of('watcher') as LatencyRow), of('sidecar') && pick(of('sidecar') as LatencyRow)) : '–'
    } |`;
  if (mode === 'attacher')
    return [
      figure('attacher mode: VolumeAttachment created → AttachVolume, p50 / p99 (changes)', (r) => r.attach, true),
      figure('attacher mode: VolumeAttachment deleting → DetachVolume, p50 / p99 (changes)', (r) => r.detach, true),
    ];
  return [
    figure('controller mode: pod bound → AttachVolume, p50 / p99 (changes)', (r) => r.attach, false),
    figure('controller mode: unmount (volumesInUse lets go) → DetachVolume, p50 / p99', (r) => r.detach, false),
    figure('controller mode: pod deleted → DetachVolume (unmount included), p50 / p99', (r) => r.deletedToDetach, false),
  ];
}

export function sideBySideTable(figures: SideBySideFigures): string[] {
  const columns = [...new Set([...figures.settings.attacher, ...figures.settings.controller])];
  const rollingOf = (mode: RollingRow['mode']) => (i: Implementation) =>
    figures.rolling.find((r) => r.mode === mode && r.implementation === i);
  const rolling = rollingOf('attacher');
  const watcher = rolling('watcher');
  const sidecar = rolling('sidecar');
  const ratio = watcher && sidecar ? watcher.totalMs / sidecar.totalMs : undefined;
  const rollingGoal = ratio === undefined ? '–' : `${ratio <= GOAL.rolling ? 'met' : 'not met'} (${ratio.toFixed(2)}×)`;
  return [
    `| figure | ${columns.map((i) => NAMES[i]).join(' | ')} | goal (watcher vs sidecar) |`,
    `| --- | ${columns.map(() => '---').join(' | ')} | --- |`,
    ...latencyRows(figures.latency, 'attacher', columns),
    rollingRow('attacher', figures.settings.pods, columns, rolling, rollingGoal),
    ...latencyRows(figures.latency, 'controller', columns),
    rollingRow('controller', figures.settings.pods, columns, rollingOf('controller'), '–'),
  ];
}

function rollingRow(
  mode: RollingRow['mode'],
  pods: number,
  columns: Implementation[],
  of: (i: Implementation) => RollingRow | undefined,
  goal: string,
): string {
  const total = (row: RollingRow | undefined) =>
    row === undefined ? '–' : `${ms(row.totalMs)}${row.unfinished === undefined ? '' : ` (stopped: ${row.unfinished})`}`;
  return `| ${mode} mode: ${pods}-pod StatefulSet rolling update, every pod to another node: total | ${columns
    .map((i) => total(of(i)))
    .join(' | ')} | ${goal} |`;
}

export function sideBySideMarkdown(figures: SideBySideFigures, command: string, startedAt: string, load: number): string {
  const s = figures.settings;
  return [
    `# Side by side (${startedAt}, load average ${load.toFixed(1)} at the start)`,
    '',
    `\`${command}\``,
    '',
    `EC2: attach ${s.attachMs / 1000} s, detach ${s.detachMs / 1000} s; ${s.rttMs} ms added to every Kubernetes, EC2 and DynamoDB request; kubelet unmount ${s.unmountMs / 1000} s; ${s.changes} changes per churn row, a pod bound every 500 ms and deleted 15 s later.`,
    '',
    ...sideBySideTable(figures),
    '',
    `Skips ahead to the next full pass (today's path, when nothing else could move): ${
      [...figures.latency, ...figures.rolling]
        .filter((r) => r.skips.count > 0)
        .map((r) => `${'mode' in r ? r.mode : 'rolling'} ${r.implementation}: ${r.skips.count} (${(r.skips.ms / 1000).toFixed(0)} s)`)
        .join('; ') || 'none'
    }.`,
    ...unfinishedNote(figures),
    '',
  ].join('\n');
}

/** Rows whose churn left volumes attached past the cap (their detach figures leave those out). */
function unfinishedNote(figures: SideBySideFigures): string[] {
  const rows = figures.latency.filter((r) => r.unfinished > 0);
  return rows.length === 0
    ? []
    : [
        '',
        `Not detached within the churn's cap of story time: ${rows.map((r) => `${r.mode} ${r.implementation}: ${r.unfinished}`).join('; ')}.`,
      ];
}
