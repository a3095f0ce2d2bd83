/**
 * Turns a pass report into CloudWatch metrics (names from metric-names.ts). Metrics with
 * their own dimensions go out as single metrics so each keeps exactly its dimension set;
 * the rest are stored and flushed by the `logMetrics` middleware.
 */
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { PassReport } from '../reconcile/pass/types.js';
import type { WatcherReport } from '../reconcile/watch/types.js';
import { Metric } from './metric-names.js';

type RejectedSource = 'event' | 'kubernetes' | 'dynamodb';

export function recordPass(metrics: Metrics, report: PassReport): void {
  single(metrics, { Pass: report.kind }).addMetric(Metric.PassDuration, MetricUnit.Milliseconds, report.durationMs);
  for (const [key, count] of countBy(report.results, (r) => `${r.kind}|${r.outcome}`)) {
    const [kind = '', outcome = ''] = key.split('|');
    single(metrics, { Kind: kind, Outcome: outcome }).addMetric(Metric.Actions, MetricUnit.Count, count);
  }
  for (const [trigger, count] of countBy(
    report.results.filter((r) => r.outcome === 'ok'),
    (r) => r.forcedTrigger,
  )) {
    single(metrics, { Trigger: trigger }).addMetric(Metric.ForcedDetaches, MetricUnit.Count, count);
  }
  for (const [source, count] of countBy(report.problems, (p) => p.source)) recordRejected(metrics, source, count);
  for (const result of report.results) {
    if (result.latencyMs === undefined) continue;
    const name = result.kind === 'attach' ? Metric.AttachLatency : Metric.DetachLatency;
    metrics.addMetric(name, MetricUnit.Milliseconds, result.latencyMs);
  }
  const conflicts = report.results.filter((r) => r.kind === 'multiAttachConflict').length;
  metrics.addMetric(Metric.MultiAttachConflicts, MetricUnit.Count, conflicts);
  metrics.addMetric(Metric.Ec2Throttles, MetricUnit.Count, report.results.filter((r) => r.throttled === true).length);
  metrics.addMetric(Metric.UnauthorizedCalls, MetricUnit.Count, report.unauthorizedCalls);
  metrics.addMetric(Metric.ExpiredOperations, MetricUnit.Count, report.expiredOperations);
  metrics.addMetric(Metric.DetachesHeldBack, MetricUnit.Count, report.heldBack.length);
  metrics.addMetric(Metric.DesiredAttachments, MetricUnit.Count, report.desiredAttachments);
  metrics.addMetric(Metric.ActualAttachments, MetricUnit.Count, report.actualAttachments);
  if (report.unwantedAttachments !== undefined) metrics.addMetric(Metric.UnwantedAttachments, MetricUnit.Count, report.unwantedAttachments);
  if (!report.clusterComplete) recordPassFailure(metrics);
  for (const [verdict, count] of Object.entries(report.shadow?.counts ?? {}))
    single(metrics, { Verdict: verdict }).addMetric(Metric.ShadowVerdicts, MetricUnit.Count, count);
  if (report.fence !== undefined) recordFence(metrics, report.fence);
}

/** One per pass under the fence: 0 while we hold the Lease, 1 when fenced, by State; who held it as a property (not a dimension: pod names come and go). */
function recordFence(metrics: Metrics, fence: NonNullable<PassReport['fence']>): void {
  const one = single(metrics, { State: fence.state });
  if (fence.holder !== undefined) one.addMetadata('holder', fence.holder);
  one.addMetric(Metric.Fenced, MetricUnit.Count, fence.state === 'held' ? 0 : 1);
}

/** What one watcher invocation did; nothing for one that ended at once (another watcher is live). */
export function recordWatcher(metrics: Metrics, report: WatcherReport): void {
  if (!report.joined) return;
  metrics.addMetric(Metric.WatcherRuns, MetricUnit.Count, 1);
  metrics.addMetric(Metric.WatchChanges, MetricUnit.Count, report.changes);
  metrics.addMetric(Metric.WatchPasses, MetricUnit.Count, report.passes);
  metrics.addMetric(Metric.WatchStalls, MetricUnit.Count, report.stalls);
  metrics.addMetric(Metric.WatchRelists, MetricUnit.Count, report.relists);
  metrics.addMetric(Metric.WatchAbandoned, MetricUnit.Count, report.abandoned);
  metrics.addMetric(Metric.WatchQueueWait, MetricUnit.Milliseconds, report.queueWaitMs.max);
}

/** A pass that could not run at all (cluster or store unreadable, a bug). */
export function recordPassFailure(metrics: Metrics): void {
  metrics.addMetric(Metric.PassFailures, MetricUnit.Count, 1);
}

/** Malformed events, objects or items that were skipped. */
export function recordRejected(metrics: Metrics, source: RejectedSource, count = 1): void {
  single(metrics, { Source: source }).addMetric(Metric.Rejected, MetricUnit.Count, count);
}

function single(metrics: Metrics, dimensions: Record<string, string>): Metrics {
  return metrics.singleMetric().addDimensions(dimensions);
}

function countBy<T, K extends string>(items: T[], key: (item: T) => K | undefined): Map<K, number> {
  const counts = new Map<K, number>();
  for (const item of items) {
    const k = key(item);
    if (k !== undefined) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return counts;
}
