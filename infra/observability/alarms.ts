/**
 * Alarms on what an operator must act on: code failing, EC2 pushing back, Lambdas dying
 * mid-operation, events nobody handled, volumes wanted on two nodes, detaches the mass-detach
 * guard held back, volumes detached while the kubelet may still hold them, and the safety-net
 * pass not running. Every alarm notifies the SNS topic, on alarm and back to OK.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { DetachTrigger } from '../../lambda/core/actions.js';
import { Metric, type MetricName } from '../../lambda/observability/metric-names.js';
import type { ControllerFunction } from '../constructs/controller-function.js';
import { controllerMetric } from './controller-metrics.js';

export interface ControllerAlarmsProps {
  clusterName: string;
  functions: Record<string, ControllerFunction>;
  deadLetterQueues: Record<string, sqs.IQueue>;
  fullPassStaleMinutes: number;
  /** The watcher runs: alarm when none has for a while. */
  watcher: boolean;
  topic: sns.ITopic;
}

/** A watcher ends about every four minutes: none in this long means none is running. */
const WATCHER_STALE = Duration.minutes(15);

/** Every trigger of a forced detach (all but `unmounted`, and kcm's `released`): keyed by the type, so none can be left out. */
const FORCED_TRIGGERS: Record<Exclude<DetachTrigger, 'unmounted' | 'released'>, true> = {
  'out-of-service': true,
  'unmount-timeout': true,
  'instance-stopped': true,
  'instance-terminated': true,
  'stuck-attach': true,
};

interface AlarmSpec {
  metric: cloudwatch.IMetric;
  threshold: number;
  description: string;
  /** Missing data means "nothing happened" unless said otherwise. */
  missing?: cloudwatch.TreatMissingData;
  comparison?: cloudwatch.ComparisonOperator;
}

export class ControllerAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly topic: sns.ITopic;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: ControllerAlarmsProps,
  ) {
    super(scope, id);
    this.topic = props.topic;
    const metric = (name: MetricName, dimensions?: Record<string, string>, period?: Duration) =>
      controllerMetric(props.clusterName, name, { statistic: 'Sum', dimensions, period });
    for (const [name, fn] of Object.entries(props.functions)) {
      this.add(`${name}Errors`, {
        metric: fn.function.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: 1,
        description: `The ${name} function failed (handlers report per-record failures, so an error is a bug or a timeout).`,
      });
    }
    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      this.add(`${name}DeadLetters`, {
        metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
        threshold: 1,
        description: `Events or invocations in the ${name} dead-letter queue were never handled; inspect and redrive.`,
      });
    }
    this.add('Ec2Throttles', {
      metric: metric(Metric.Ec2Throttles),
      threshold: 10,
      description: "EC2 answered RequestLimitExceeded repeatedly: attach/detach share the account's token bucket.",
    });
    this.add('ExpiredOperations', {
      metric: metric(Metric.ExpiredOperations),
      threshold: 1,
      description: 'A Lambda died mid-operation; the next pass resolves it, but it should be rare.',
    });
    this.add('MultiAttachConflicts', {
      metric: metric(Metric.MultiAttachConflicts),
      threshold: 1,
      description: 'Pods wait for an exclusive volume that is attached to another node.',
    });
    this.add('DetachesHeldBack', {
      metric: metric(Metric.DetachesHeldBack),
      threshold: 1,
      description: 'The mass-detach guard held detaches back: check that the cluster read is right, then let them through.',
    });
    this.add('ForcedDetaches', {
      metric: forcedDetaches(props.clusterName),
      threshold: 1,
      description: 'A volume was detached while the kubelet may still hold it (timeout, out-of-service, stopped or gone instance).',
    });
    this.add('UnauthorizedCalls', {
      metric: metric(Metric.UnauthorizedCalls),
      threshold: 1,
      description:
        'EC2 or the Kubernetes API refused the role: a volume or instance lacks the tags the role requires, an encrypted volume’s key is not in kmsKeyArns, or RBAC is missing (`ebs-attach-detach explain` names the missing tag).',
    });
    // Failback: another holder leads after we held the Lease (our passes could not renew for the
    // record's duration, and the standby sidecar took it). Either it attaches again, with the
    // EBS CSI role's permissions, or nothing attaches at all: docs/eks.md, Standby postures.
    this.add('FencedAfterHeld', {
      metric: metric(Metric.Fenced, { State: 'failed-back' }),
      threshold: 1,
      description:
        "Passes run fenced after we held the csi-attacher sidecar's Lease: the sidecar leads again (failback), or nothing attaches if it lost its permissions. Find why our passes stopped renewing, then take the Lease back (docs/eks.md, runbook).",
    });
    this.add('NoSidecarLease', {
      metric: metric(Metric.Fenced, { State: 'no-lease' }),
      threshold: 1,
      description:
        'The lease fence finds no csi-attacher Lease and acts on nothing: wrong leaseFenceNamespace or leaseFenceName, or the sidecar runs without leader election (docs/eks.md, runbook).',
    });
    this.add('PassFailures', {
      metric: metric(Metric.PassFailures),
      threshold: 3,
      description: 'Passes abort: the cluster API or the state table cannot be read.',
    });
    this.add('NoFullPass', {
      metric: successfulFullPasses(props.clusterName, Duration.minutes(props.fullPassStaleMinutes)),
      threshold: 1,
      comparison: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      missing: cloudwatch.TreatMissingData.BREACHING,
      description: `No full pass succeeded in ${props.fullPassStaleMinutes} minutes: the safety net is not running.`,
    });
    if (props.watcher)
      this.add('NoWatcher', {
        metric: controllerMetric(props.clusterName, Metric.WatcherRuns, { statistic: 'Sum', period: WATCHER_STALE }),
        threshold: 1,
        comparison: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        missing: cloudwatch.TreatMissingData.BREACHING,
        description: `No watcher ran in ${WATCHER_STALE.toMinutes()} minutes: changes wait for the full pass (every minute) instead of seconds.`,
      });
  }

  private add(id: string, spec: AlarmSpec): void {
    const alarm = new cloudwatch.Alarm(this, id, {
      metric: spec.metric,
      threshold: spec.threshold,
      evaluationPeriods: 1,
      comparisonOperator: spec.comparison ?? cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: spec.missing ?? cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: `[${this.props.clusterName}] ${spec.description}`,
    });
    alarm.addAlarmAction(new actions.SnsAction(this.props.topic));
    alarm.addOkAction(new actions.SnsAction(this.props.topic));
    this.alarms.push(alarm);
  }
}

/** ForcedDetaches is published per Trigger: the alarm adds up every trigger's series. */
function forcedDetaches(clusterName: string): cloudwatch.IMetric {
  const triggers = Object.keys(FORCED_TRIGGERS);
  const usingMetrics = Object.fromEntries(
    triggers.map((trigger, i) => [
      `forced${i}`,
      controllerMetric(clusterName, Metric.ForcedDetaches, { dimensions: { Trigger: trigger } }),
    ]),
  );
  return new cloudwatch.MathExpression({
    expression: Object.keys(usingMetrics)
      .map((id) => `FILL(${id}, 0)`)
      .join(' + '),
    usingMetrics,
    period: Duration.minutes(5),
    label: 'Forced detaches',
  });
}

/**
 * Full passes reported (every pass reports its duration, even one whose cluster read was
 * incomplete) minus passes that failed (incomplete or aborted, of any kind): below one means no
 * full pass did its whole job in the period.
 */
function successfulFullPasses(clusterName: string, period: Duration): cloudwatch.IMetric {
  return new cloudwatch.MathExpression({
    expression: 'FILL(fullPasses, 0) - FILL(failures, 0)',
    usingMetrics: {
      fullPasses: controllerMetric(clusterName, Metric.PassDuration, { dimensions: { Pass: 'full' }, statistic: 'SampleCount', period }),
      failures: controllerMetric(clusterName, Metric.PassFailures, { statistic: 'Sum', period }),
    },
    period,
    label: 'Successful full passes',
  });
}
