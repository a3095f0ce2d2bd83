/**
 * CloudWatch views of the handlers' metrics (names from lambda/observability/metric-names.ts).
 * Powertools publishes each metric under exactly one dimension set: `service` (its service
 * name), ClusterName, and the metric's own dimensions. A CloudWatch query must name that whole
 * set, so a metric with extra dimensions is read back with a SEARCH over it.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { METRICS_NAMESPACE, Metric, SERVICE_NAME, type MetricName } from '../../lambda/observability/metric-names.js';

export interface MetricView {
  /** Dimensions besides service and ClusterName, as documented next to each name. */
  dimensions: readonly string[];
  statistic: 'Sum' | 'Average' | 'p50' | 'p99' | 'Maximum';
  title: string;
}

/** Keyed by every metric name, so a new metric cannot be left off the dashboard. */
export const METRIC_VIEWS: Record<MetricName, MetricView> = {
  [Metric.PassDuration]: { dimensions: ['Pass'], statistic: 'p99', title: 'Pass duration p99 (ms) by pass' },
  [Metric.Actions]: { dimensions: ['Kind', 'Outcome'], statistic: 'Sum', title: 'Actions by kind and outcome' },
  [Metric.AttachLatency]: { dimensions: [], statistic: 'p99', title: 'Attach latency p99 (ms)' },
  [Metric.DetachLatency]: { dimensions: [], statistic: 'p99', title: 'Detach latency p99 (ms)' },
  [Metric.ForcedDetaches]: { dimensions: ['Trigger'], statistic: 'Sum', title: 'Forced detaches by trigger' },
  [Metric.MultiAttachConflicts]: { dimensions: [], statistic: 'Sum', title: 'Multi-Attach conflicts' },
  [Metric.Ec2Throttles]: { dimensions: [], statistic: 'Sum', title: 'EC2 throttled calls' },
  [Metric.ExpiredOperations]: { dimensions: [], statistic: 'Sum', title: 'Operations found past their lease' },
  [Metric.DesiredAttachments]: { dimensions: [], statistic: 'Maximum', title: 'Desired attachments' },
  [Metric.ActualAttachments]: { dimensions: [], statistic: 'Maximum', title: 'Actual attachments' },
  [Metric.DetachesHeldBack]: { dimensions: [], statistic: 'Sum', title: 'Detaches held back by the mass-detach guard' },
  [Metric.Rejected]: { dimensions: ['Source'], statistic: 'Sum', title: 'Malformed inputs skipped by source' },
  [Metric.ShadowVerdicts]: { dimensions: ['Verdict'], statistic: 'Maximum', title: 'Shadow: VolumeAttachments per verdict (per pass)' },
  // A gauge per full pass: the largest in the period is how many stood unclaimed, not a sum over passes.
  [Metric.UnwantedAttachments]: {
    dimensions: [],
    statistic: 'Maximum',
    title: 'Attached where no Kubernetes object names it (left attached)',
  },
  [Metric.PassFailures]: { dimensions: [], statistic: 'Sum', title: 'Aborted passes' },
  [Metric.UnauthorizedCalls]: {
    dimensions: [],
    statistic: 'Sum',
    title: 'Calls refused the role (EC2 UnauthorizedOperation, Kubernetes 403)',
  },
  [Metric.Fenced]: {
    dimensions: ['State'],
    statistic: 'Sum',
    title: 'Passes under the lease fence by state (held: 0, else 1: only planned)',
  },
  [Metric.WatcherRuns]: { dimensions: [], statistic: 'Sum', title: 'Watchers that ran (one ends about every four minutes)' },
  [Metric.WatchChanges]: { dimensions: [], statistic: 'Sum', title: 'Watched changes received' },
  [Metric.WatchPasses]: { dimensions: [], statistic: 'Sum', title: 'Targeted passes the watcher ran' },
  [Metric.WatchStalls]: { dimensions: [], statistic: 'Sum', title: 'Watch streams cut after going silent' },
  [Metric.WatchRelists]: { dimensions: [], statistic: 'Sum', title: 'Watch lists (no checkpoint, or a 410)' },
  [Metric.WatchAbandoned]: { dimensions: [], statistic: 'Sum', title: 'Watched targets given up (left to the full pass)' },
  [Metric.WatchQueueWait]: { dimensions: [], statistic: 'Maximum', title: 'Change → pass start, largest (ms)' },
};

const PERIOD = Duration.minutes(5);

/** The dimensions every controller metric carries. */
function baseDimensions(clusterName: string): Record<string, string> {
  return { service: SERVICE_NAME, ClusterName: clusterName };
}

/** One controller metric with exactly the given dimensions. */
export function controllerMetric(
  clusterName: string,
  name: MetricName,
  options: { dimensions?: Record<string, string>; statistic?: string; period?: Duration } = {},
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { ...baseDimensions(clusterName), ...options.dimensions },
    statistic: options.statistic ?? METRIC_VIEWS[name].statistic,
    period: options.period ?? PERIOD,
  });
}

/** The metric as graphed: itself, or one line per value of its extra dimensions. */
export function graphedMetric(clusterName: string, name: MetricName): cloudwatch.IMetric {
  const view = METRIC_VIEWS[name];
  if (view.dimensions.length === 0) return controllerMetric(clusterName, name);
  const schema = [METRICS_NAMESPACE, 'service', 'ClusterName', ...view.dimensions].join(',');
  const filter = `MetricName="${name}" service="${SERVICE_NAME}" ClusterName="${clusterName}"`;
  return new cloudwatch.MathExpression({
    expression: `SEARCH('{${schema}} ${filter}', '${view.statistic}', ${PERIOD.toSeconds()})`,
    usingMetrics: {},
    label: view.title,
    period: PERIOD,
  });
}
