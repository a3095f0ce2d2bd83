import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { METRICS_NAMESPACE, Metric, type MetricName } from '../../lambda/observability/metric-names.js';
import { METRIC_VIEWS } from '../../infra/observability/controller-metrics.js';
import { resourceId, synthesize } from './synth.js';

let template: Template;
beforeAll(() => {
  ({ template } = synthesize());
});

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:ops';
const cluster = { Name: 'ClusterName', Value: 'prod' };
const queueName = (prefix: string) => ({ 'Fn::GetAtt': [resourceId(template, 'AWS::SQS::Queue', prefix), 'QueueName'] });
const fnRef = (prefix: string) => ({ Ref: resourceId(template, 'AWS::Lambda::Function', prefix) });

describe('alarms', () => {
  it.each([
    ['a Lambda error in the scheduled function', 'AWS/Lambda', 'Errors', [{ Name: 'FunctionName', Value: 'ScheduledPassFunction' }], 'Sum', 1],
    ['a Lambda error in the cluster-event function', 'AWS/Lambda', 'Errors', [{ Name: 'FunctionName', Value: 'ClusterEventPassFunction' }], 'Sum', 1],
    ['a Lambda error in the EC2-event function', 'AWS/Lambda', 'Errors', [{ Name: 'FunctionName', Value: 'Ec2EventPassFunction' }], 'Sum', 1],
    ['a scheduled invocation in the DLQ', 'AWS/SQS', 'ApproximateNumberOfMessagesVisible', [{ Name: 'QueueName', Value: 'ScheduledPassDeadLetterQueue' }], 'Maximum', 1],
    ['a cluster event in the DLQ', 'AWS/SQS', 'ApproximateNumberOfMessagesVisible', [{ Name: 'QueueName', Value: 'ClusterEventsDeadLetterQueue' }], 'Maximum', 1],
    ['an EC2 event in the DLQ', 'AWS/SQS', 'ApproximateNumberOfMessagesVisible', [{ Name: 'QueueName', Value: 'Ec2EventsDeadLetterQueue' }], 'Maximum', 1],
    ['EC2 throttling', METRICS_NAMESPACE, Metric.Ec2Throttles, [cluster], 'Sum', 10],
    ['an operation past its lease', METRICS_NAMESPACE, Metric.ExpiredOperations, [cluster], 'Sum', 1],
    ['a Multi-Attach conflict', METRICS_NAMESPACE, Metric.MultiAttachConflicts, [cluster], 'Sum', 1],
    ['repeated pass failures', METRICS_NAMESPACE, Metric.PassFailures, [cluster], 'Sum', 3],
  ])('fires on %s and notifies the topic', (_behaviour, namespace, metricName, dimensions, statistic, threshold) => {
    const resolved = dimensions.map((d) => d.Name === 'FunctionName' ? { Name: d.Name, Value: fnRef(d.Value) }
      : d.Name === 'QueueName' ? { Name: d.Name, Value: queueName(d.Value) } : d);
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

  it('fires when no full pass completed for the configured minutes, missing data included', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: METRICS_NAMESPACE,
      MetricName: Metric.PassDuration,
      Dimensions: [cluster, { Name: 'Pass', Value: 'full' }],
      Statistic: 'SampleCount',
      Period: 600,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
    synthesize({ fullPassStaleMinutes: 20 }).template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: Metric.PassDuration, Period: 1200,
    });
  });

  it('has exactly these eleven alarms', () => {
    template.resourceCountIs('AWS::CloudWatch::Alarm', 11);
  });

  it('only changes state when no topic is configured', () => {
    const quiet = synthesize({ alarmTopicArn: '' }).template;
    quiet.resourcePropertiesCountIs('AWS::CloudWatch::Alarm', { AlarmActions: Match.anyValue() }, 0);
  });
});

describe('dashboard', () => {
  const body = () => JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'));
  /** How a metric appears in the rendered body: a plain metric array, or a SEARCH over its dimension set. */
  const rendered = (name: MetricName) => METRIC_VIEWS[name].dimensions.length === 0
    ? String.raw`\"${METRICS_NAMESPACE}\",\"${name}\",\"ClusterName\",\"prod\"`
    : String.raw`SEARCH('{${[METRICS_NAMESPACE, 'ClusterName', ...METRIC_VIEWS[name].dimensions].join(',')}} MetricName=\\\"${name}\\\" ClusterName=\\\"prod\\\"'`;

  it.each(Object.values(Metric))('graphs %s with the dimensions the handlers publish it under', (name) => {
    expect(body()).toContain(rendered(name));
  });

  it('shows the state of every alarm', () => {
    for (const alarm of Object.keys(template.findResources('AWS::CloudWatch::Alarm'))) {
      expect(body()).toContain(String.raw`{"Fn::GetAtt":["${alarm}","Arn"]}`);
    }
  });

  it('graphs the functions and queues behind the passes', () => {
    for (const title of ['Scheduled function', 'ClusterEvent function', 'Ec2Event function', 'ClusterEvents queue',
      'Ec2Events queue', 'ScheduledPass dead-letter queue', 'ClusterEvents dead-letter queue', 'Ec2Events dead-letter queue']) {
      expect(body()).toContain(String.raw`\"title\":\"${title}\"`);
    }
  });
});
