/**
 * `npm run bench -- --side-by-side --trace --churn [--changes 60] [--rtt 10]`: where the watcher's
 * reaction goes under the side-by-side churn (a pod bound every 500 ms, deleted 15 s later), per
 * change, split at the moments the watcher itself knows: kcm creates (starts deleting) the
 * VolumeAttachment → the watch delivers the change (the dispatcher's `receivedAt`) → its targeted
 * pass starts (`startedAt`) → EC2 receives AttachVolume (DetachVolume). Beside them: how long each
 * kind of request took to be answered during the churn (what one round trip costs when every
 * server and the watcher share one event loop), that loop's delay, and the passes the watcher ran
 * (how many did nothing). Medians and p90 over the changes.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Reaction } from '../../lambda/reconcile/watch/types.js';
import { servicesByEndpoint, traceRequests, type TracedRequest } from '../request-trace.js';
import { startImplementation } from './implementations.js';
import { churn } from './scenes.js';
import { startStage, type Stage } from './stage.js';

const NODES = 20;

const pct = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};
const show = (values: readonly number[]) => `p50 ${pct(values, 50).toFixed(0)} ms, p90 ${pct(values, 90).toFixed(0)} ms (${values.length})`;

/** The volume a reaction's VolumeAttachment names, and whether it was being deleted. */
function volumeOf(stage: Stage, reaction: Reaction): { volumeId: string; deleting: boolean } | undefined {
  const va = reaction.target.kind === 'volumeAttachment' ? reaction.target.seen : undefined;
  const pv = stage.world.kube.get('PersistentVolume', undefined, va?.spec.source.persistentVolumeName ?? '') as
    { spec?: { csi?: { volumeHandle?: string } } } | undefined;
  const volumeId = pv?.spec?.csi?.volumeHandle;
  return volumeId === undefined ? undefined : { volumeId, deleting: va?.metadata.deletionTimestamp != null };
}

interface Phases {
  delivery: number[];
  queued: number[];
  pass: number[];
  total: number[];
  /** The slowest changes: their phases and the passes the watcher ran for the object until the call. */
  slowest: { total: number; line: string }[];
}

/** Per change: the first pass that started after the change and before EC2 received the call. */
function phasesOf(
  reactions: readonly Reaction[],
  stage: Stage,
  from: ReadonlyMap<string, number>,
  to: ReadonlyMap<string, number>,
  deleting: boolean,
): Phases {
  const phases: Phases = { delivery: [], queued: [], pass: [], total: [], slowest: [] };
  for (const [volumeId, changedAt] of from) {
    const sentAt = to.get(volumeId);
    if (sentAt === undefined) continue;
    const reaction = reactions.find((r) => {
      const of = volumeOf(stage, r);
      return of?.volumeId === volumeId && of.deleting === deleting && r.receivedAt >= changedAt && r.startedAt <= sentAt;
    });
    if (reaction === undefined) continue;
    phases.delivery.push(reaction.receivedAt - changedAt);
    phases.queued.push(reaction.startedAt - reaction.receivedAt);
    phases.pass.push(sentAt - reaction.startedAt);
    phases.total.push(sentAt - changedAt);
    const passes = reactions
      .filter((r) => volumeOf(stage, r)?.volumeId === volumeId && r.receivedAt >= changedAt && r.startedAt <= sentAt)
      .map((r) => `${r.outcome} +${r.startedAt - changedAt}–${r.finishedAt - changedAt} ms (${r.actions} actions)`);
    const line = `${volumeId}: ${sentAt - changedAt} ms; delivered +${reaction.receivedAt - changedAt}, passes ${passes.join(', ')}`;
    phases.slowest = [...phases.slowest, { total: sentAt - changedAt, line }].sort((a, b) => b.total - a.total).slice(0, 3);
  }
  return phases;
}

function requestLines(requests: readonly TracedRequest[]): string[] {
  const byLabel = new Map<string, number[]>();
  for (const r of requests) {
    const label = `${r.service} ${r.service === 'Kubernetes' ? r.label.replace(/\/[^/]+$/, '/…') : r.label}`;
    byLabel.set(label, [...(byLabel.get(label) ?? []), r.endMs - r.startMs]);
  }
  return [...byLabel]
    .filter(([, times]) => times.length >= 10)
    .sort((a, b) => b[1].length - a[1].length)
    .map(([label, times]) => `  ${label}: ${show(times)}`);
}

export async function traceChurn(changes: number, rttMs: number): Promise<string[]> {
  const stage = await startStage({ mode: 'attacher', nodes: NODES, rttMs, attachMs: 2_000, detachMs: 3_000, unmountMs: 1_000 });
  const reactions: Reaction[] = [];
  const lines: string[] = [];
  try {
    const volumes = [];
    for (let i = 0; i < changes; i++) volumes.push(await stage.world.createVolume({ name: `churn-${i}` }));
    const running = startImplementation(stage, 'watcher', (reaction) => reactions.push(reaction));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    stage.slowDown();
    const { world } = stage;
    const trace = traceRequests(
      servicesByEndpoint({ Kubernetes: world.kube.url, EC2: world.ec2.endpoint, DynamoDB: world.env.AWS_ENDPOINT_URL_DYNAMODB ?? '' }),
    );
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    await churn(stage, running, volumes, { spacingMs: 500, lifetimeMs: 15_000 }, { count: 0, ms: 0 });
    loop.disable();
    const requests = trace.stop();
    await running.stop();
    const { recorded } = stage;
    const attach = phasesOf(reactions, stage, recorded.vaCreated, recorded.attachSent, false);
    const detach = phasesOf(reactions, stage, recorded.vaDeleting, recorded.detachSent, true);
    const idle = reactions.filter((r) => r.actions === 0).length;
    lines.push(
      `watcher under churn: ${changes} pods, ${rttMs} ms added round trip`,
      `attach, VolumeAttachment created → AttachVolume: ${show(attach.total)}`,
      `  created → change delivered by the watch: ${show(attach.delivery)}`,
      `  delivered → its pass started (queued): ${show(attach.queued)}`,
      `  pass started → AttachVolume received: ${show(attach.pass)}`,
      `detach, VolumeAttachment deleting → DetachVolume: ${show(detach.total)}`,
      `  deleting → change delivered by the watch: ${show(detach.delivery)}`,
      `  delivered → its pass started (queued): ${show(detach.queued)}`,
      `  pass started → DetachVolume received: ${show(detach.pass)}`,
      ...attach.slowest.map((s) => `  slowest attach ${s.line}`),
      ...detach.slowest.map((s) => `  slowest detach ${s.line}`),
      `passes the watcher ran: ${reactions.length}, of which with no action: ${idle}, failed: ${reactions.filter((r) => r.outcome === 'failed').length}, unconverged: ${reactions.filter((r) => r.outcome === 'unconverged').length}`,
      `event loop delay during the churn: p50 ${(loop.percentile(50) / 1e6).toFixed(0)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms, max ${(loop.max / 1e6).toFixed(0)} ms`,
      'requests during the churn (sent → answered), at least 10 of a kind:',
      ...requestLines(requests),
    );
  } finally {
    await stage.stop();
  }
  return lines;
}
