import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE, Metric, SERVICE_NAME, type MetricName } from '../../lambda/observability/metric-names.js';
import { METRIC_VIEWS } from '../../infra/observability/controller-metrics.js';
import { createTelemetry } from '../../lambda/observability/telemetry.js';
import { SYNTH_TIMEOUT_MS, resourceId, synthesize } from './synth.js';

let template: Template;
beforeAll(() => {
  ({ template } = synthesize());
}, SYNTH_TIMEOUT_MS);

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:ops';
const service = { Name: 'service', Value: 'ebs-attach-detach' };
const cluster = { Name: 'ClusterName', Value: 'prod' };
const queueName = (prefix: string) => ({ 'Fn::GetAtt': [resourceId(template, 'AWS::SQS::Queue', prefix), 'QueueName'] });
const fnRef = (prefix: string) => ({ Ref: resourceId(template, 'AWS::Lambda::Function', prefix) });

describe('alarms', () => {
  it.each([
    [
      'a Lambda error in the scheduled function',
      'AWS/Lambda',
      'Errors',
      [{ Name: 'FunctionName', Value: 'ScheduledPassFunction' }],
      'Sum',
      1,
    ],
    [
      'a Lambda error in the cluster-event function',
      'AWS/Lambda',
      'Errors',
      [{ Name: 'FunctionName', Value: 'ClusterEventPassFunction' }],
      'Sum',
      1,
    ],
    [
      'a Lambda error in the EC2-event function',
      'AWS/Lambda',
      'Errors',
      [{ Name: 'FunctionName', Value: 'Ec2EventPassFunction' }],
      'Sum',
      1,
    ],
    [
      'a scheduled invocation in the DLQ',
      'AWS/SQS',
      'ApproximateNumberOfMessagesVisible',
      [{ Name: 'QueueName', Value: 'ScheduledPassDeadLetterQueue' }],
      'Maximum',
      1,
    ],
    [
      'a cluster event in the DLQ',
      'AWS/SQS',
      'ApproximateNumberOfMessagesVisible',
      [{ Name: 'QueueName', Value: 'ClusterEventsDeadLetterQueue' }],
      'Maximum',
      1,
    ],
    ['a Lambda error in the watcher function', 'AWS/Lambda', 'Errors', [{ Name: 'FunctionName', Value: 'WatcherFunction' }], 'Sum', 1],
    [
      'a watcher invocation in the DLQ',
      'AWS/SQS',
      'ApproximateNumberOfMessagesVisible',
      [{ Name: 'QueueName', Value: 'WatcherDeadLetterQueue' }],
      'Maximum',
      1,
    ],
    [
      'an EC2 event in the DLQ',
      'AWS/SQS',
      'ApproximateNumberOfMessagesVisible',
      [{ Name: 'QueueName', Value: 'Ec2EventsDeadLetterQueue' }],
      'Maximum',
      1,
    ],
    ['EC2 throttling', METRICS_NAMESPACE, Metric.Ec2Throttles, [cluster, service], 'Sum', 10],
    ['an operation past its lease', METRICS_NAMESPACE, Metric.ExpiredOperations, [cluster, service], 'Sum', 1],
    ['a Multi-Attach conflict', METRICS_NAMESPACE, Metric.MultiAttachConflicts, [cluster, service], 'Sum', 1],
    ['repeated pass failures', METRICS_NAMESPACE, Metric.PassFailures, [cluster, service], 'Sum', 3],
    ['detaches the mass-detach guard held back', METRICS_NAMESPACE, Metric.DetachesHeldBack, [cluster, service], 'Sum', 1],
    ['a call EC2 or the Kubernetes API refused the role', METRICS_NAMESPACE, Metric.UnauthorizedCalls, [cluster, service], 'Sum', 1],
    [
      'passes fenced after we held the Lease (failback)',
      METRICS_NAMESPACE,
      Metric.Fenced,
      [cluster, { Name: 'State', Value: 'failed-back' }, service],
      'Sum',
      1,
    ],
    ['a fence that finds no Lease', METRICS_NAMESPACE, Metric.Fenced, [cluster, { Name: 'State', Value: 'no-lease' }, service], 'Sum', 1],
  ])('fires on %s and notifies the topic', (_behaviour, namespace, metricName, dimensions, statistic, threshold) => {
    const resolved = dimensions.map((d) =>
      d.Name === 'FunctionName'
        ? { Name: d.Name, Value: fnRef(d.Value) }
        : d.Name === 'QueueName'
          ? { Name: d.Name, Value: queueName(d.Value) }
          : d,
    );
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: namespace,
      MetricName: metricName,
      Dimensions: resolved,
      Statistic: statistic,
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: threshold,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [TOPIC],
      OKActions: [TOPIC],
    });
  });

  it('fires when no full pass succeeded for the configured minutes: full passes minus failed passes, missing data included', () => {
    const stat = (metricName: string, dimensions: unknown[], statistic: string) => ({
      MetricStat: {
        Metric: { Namespace: METRICS_NAMESPACE, MetricName: metricName, Dimensions: dimensions },
        Period: 600,
        Stat: statistic,
      },
      ReturnData: false,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: [
        { Expression: 'FILL(fullPasses, 0) - FILL(failures, 0)', Id: 'expr_1', Label: 'Successful full passes' },
        { Id: 'fullPasses', ...stat(Metric.PassDuration, [cluster, { Name: 'Pass', Value: 'full' }, service], 'SampleCount') },
        { Id: 'failures', ...stat(Metric.PassFailures, [cluster, service], 'Sum') },
      ],
      EvaluationPeriods: 1,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
      AlarmActions: [TOPIC],
    });
  });

  it('fires on any forced detach: the sum over every trigger ForcedDetaches is published with', () => {
    const triggers = ['out-of-service', 'unmount-timeout', 'instance-stopped', 'instance-terminated', 'stuck-attach'];
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: [
        {
          Expression: triggers.map((_t, i) => `FILL(forced${i}, 0)`).join(' + '),
          Id: 'expr_1',
          Label: 'Forced detaches',
          ReturnData: true,
        },
        ...triggers.map((trigger, i) => ({
          Id: `forced${i}`,
          MetricStat: {
            Metric: {
              Namespace: METRICS_NAMESPACE,
              MetricName: Metric.ForcedDetaches,
              Dimensions: [cluster, { Name: 'Trigger', Value: trigger }, service],
            },
            Period: 300,
            Stat: 'Sum',
          },
          ReturnData: false,
        })),
      ],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [TOPIC],
      OKActions: [TOPIC],
    });
  });

  it('fires when no watcher ran for 15 minutes, missing data included (one ends about every four)', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: METRICS_NAMESPACE,
      MetricName: Metric.WatcherRuns,
      Dimensions: [cluster, service],
      Statistic: 'Sum',
      Period: 900,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
      AlarmActions: [TOPIC],
    });
  });

  it('has exactly these nineteen alarms', () => {
    template.resourceCountIs('AWS::CloudWatch::Alarm', 19);
  });

  it('notifies the given topic and creates none of its own', () => {
    template.resourceCountIs('AWS::SNS::Topic', 0);
  });
});

describe('metric dimensions', () => {
  /** The dimension sets the handlers' own telemetry publishes a metric under, read from its EMF output. */
  const published = (name: MetricName, extra: Record<string, string>): string[][] => {
    const written: string[] = [];
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0);
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false'); // on, as in Lambda
    try {
      const { metrics } = createTelemetry({
        serviceName: SERVICE_NAME,
        metricsNamespace: METRICS_NAMESPACE,
        clusterName: 'prod',
        logLevel: 'INFO',
      });
      metrics.singleMetric().addDimensions(extra).addMetric(name, MetricUnit.Count, 1);
    } finally {
      stdout.mockRestore();
      vi.unstubAllEnvs();
    }
    const emf = written.map((line) => JSON.parse(line) as { _aws: { CloudWatchMetrics: { Dimensions: string[][] }[] } });
    return emf.flatMap((blob) => blob._aws.CloudWatchMetrics.flatMap((m) => m.Dimensions.map((set) => [...set].sort())));
  };
  type Stat = { MetricName?: string; Dimensions?: { Name: string }[] };
  type AlarmProperties = Stat & { Metrics?: { MetricStat?: { Metric: Stat } }[] };
  const alarmDimensions = (name: MetricName) =>
    Object.values(
      (
        template.toJSON() as {
          Resources: Record<string, { Type: string; Properties: AlarmProperties }>;
        }
      ).Resources,
    )
      .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
      .flatMap((alarm) => [alarm.Properties, ...(alarm.Properties.Metrics ?? []).flatMap((m) => m.MetricStat?.Metric ?? [])])
      .filter((stat) => stat.MetricName === name)
      .map((stat) => (stat.Dimensions ?? []).map((d) => d.Name).sort())
      .filter((set, i, sets) => sets.findIndex((other) => other.join() === set.join()) === i);

  it.each([
    [Metric.Ec2Throttles, {}],
    [Metric.PassDuration, { Pass: 'full' }],
    [Metric.DetachesHeldBack, {}],
    [Metric.UnauthorizedCalls, {}],
    [Metric.ForcedDetaches, { Trigger: 'unmount-timeout' }],
    [Metric.Fenced, { State: 'failed-back' }],
  ])('alarms on %s under exactly the dimension set Powertools publishes it with', (name, extra) => {
    expect(alarmDimensions(name)).toEqual(published(name, extra));
  });
});

describe('dashboard', () => {
  const body = () => JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'));
  /** How a metric appears in the rendered body: a plain metric array, or a SEARCH over its dimension set. */
  const rendered = (name: MetricName) =>
    METRIC_VIEWS[name].dimensions.length === 0
      ? String.raw`\"${METRICS_NAMESPACE}\",\"${name}\",\"ClusterName\",\"prod\",\"service\",\"ebs-attach-detach\"`
      : String.raw`SEARCH('{${[METRICS_NAMESPACE, 'service', 'ClusterName', ...METRIC_VIEWS[name].dimensions].join(',')}} ` +
        String.raw`MetricName=\\\"${name}\\\" service=\\\"ebs-attach-detach\\\" ClusterName=\\\"prod\\\"'`;

  // Powertools adds `service` (POWERTOOLS_SERVICE_NAME) to ClusterName and the metric's own dimensions.
  it.each(Object.values(Metric))('graphs %s with the dimensions the handlers publish it under', (name) => {
    expect(body()).toContain(rendered(name));
  });

  it('shows the state of every alarm', () => {
    for (const alarm of Object.keys(template.findResources('AWS::CloudWatch::Alarm'))) {
      expect(body()).toContain(String.raw`{"Fn::GetAtt":["${alarm}","Arn"]}`);
    }
  });

  it('graphs the functions and queues behind the passes', () => {
    for (const title of [
      'Scheduled function',
      'Watcher function',
      'ClusterEvent function',
      'Ec2Event function',
      'ClusterEvents queue',
      'Ec2Events queue',
      'ScheduledPass dead-letter queue',
      'Watcher dead-letter queue',
      'ClusterEvents dead-letter queue',
      'Ec2Events dead-letter queue',
    ]) {
      expect(body()).toContain(String.raw`\"title\":\"${title}\"`);
    }
  });
});
