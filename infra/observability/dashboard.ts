/**
 * One dashboard per cluster: alarm states first, then every controller metric (one graph each,
 * in the order of metric-names.ts), then the Lambda functions and queues that carry the passes.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { Metric } from '../../lambda/observability/metric-names.js';
import type { ControllerFunction } from '../constructs/controller-function.js';
import { METRIC_VIEWS, graphedMetric } from './controller-metrics.js';

export interface ControllerDashboardProps {
  clusterName: string;
  functions: Record<string, ControllerFunction>;
  queues: Record<string, sqs.IQueue>;
  alarms: cloudwatch.IAlarm[];
}

const WIDTH = 8;
const HEIGHT = 6;

export class ControllerDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ControllerDashboardProps) {
    super(scope, id);
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
    });
    this.dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({
        title: `Alarms (${props.clusterName})`,
        alarms: props.alarms,
        width: 24,
      }),
    );
    this.dashboard.addWidgets(
      ...Object.values(Metric).map(
        (name) =>
          new cloudwatch.GraphWidget({
            title: METRIC_VIEWS[name].title,
            left: [graphedMetric(props.clusterName, name)],
            width: WIDTH,
            height: HEIGHT,
          }),
      ),
    );
    this.dashboard.addWidgets(...Object.entries(props.functions).map(([name, fn]) => functionWidget(name, fn)));
    this.dashboard.addWidgets(...Object.entries(props.queues).map(([name, queue]) => queueWidget(name, queue)));
  }
}

function functionWidget(name: string, fn: ControllerFunction): cloudwatch.GraphWidget {
  const f = fn.function;
  return new cloudwatch.GraphWidget({
    title: `${name} function`,
    left: [f.metricInvocations(), f.metricErrors(), f.metricThrottles()],
    right: [f.metricDuration({ statistic: 'p99' })],
    width: WIDTH,
    height: HEIGHT,
  });
}

function queueWidget(name: string, queue: sqs.IQueue): cloudwatch.GraphWidget {
  return new cloudwatch.GraphWidget({
    title: `${name} queue`,
    left: [queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum' })],
    right: [queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum' })],
    width: WIDTH,
    height: HEIGHT,
  });
}
