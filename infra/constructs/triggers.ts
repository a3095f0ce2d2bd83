/**
 * What starts a pass (DESIGN §9): the schedule for the full pass, and two EventBridge rules whose
 * events are buffered in SQS for the targeted passes.
 */
import { Aws, type CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as events from 'aws-cdk-lib/aws-events';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  CLUSTER_EVENT_KINDS,
  CLUSTER_EVENT_REASONS,
  EC2_STOPPING_STATES,
  EXPORTER_DETAIL_TYPE,
  EXPORTER_SOURCE,
  FULL_PASS_INPUT,
  WATCH_INPUT,
  EC2_SOURCE,
  EC2_STATE_CHANGE_DETAIL_TYPE,
} from '../../lambda/handlers/contracts.js';
import type { OperatingMode } from '../settings.js';
import type { ControllerFunction } from './controller-function.js';
import type { EventQueue } from './event-queue.js';

type EventKind = (typeof CLUSTER_EVENT_KINDS)[number];
type EventReason = (typeof CLUSTER_EVENT_REASONS)[number];

/**
 * The cluster events that start a targeted pass, per mode (each a subset of what the handler
 * accepts). Controller mode: Pod and Node events of the reasons that move volumes. Attacher mode:
 * kcm decides detach timing and creating a VolumeAttachment makes no Event, so only a pod's
 * `Scheduled` helps: the pass computes the names of the VAs kcm will create and polls them.
 */
const CLUSTER_EVENT_TRIGGERS: Record<OperatingMode, { kinds: readonly EventKind[]; reasons: readonly EventReason[] }> = {
  controller: { kinds: CLUSTER_EVENT_KINDS, reasons: CLUSTER_EVENT_REASONS },
  attacher: { kinds: ['Pod'], reasons: ['Scheduled'] },
};

/** Cluster events from kubernetes-event-exporter that start a targeted pass in `mode`. */
function clusterEventPattern(mode: OperatingMode): events.EventPattern {
  const { kinds, reasons } = CLUSTER_EVENT_TRIGGERS[mode];
  return {
    source: [EXPORTER_SOURCE],
    detailType: [EXPORTER_DETAIL_TYPE],
    detail: { involvedObject: { kind: [...kinds] }, reason: [...reasons] },
  };
}

const RULE_DESCRIPTIONS: Record<OperatingMode, string> = {
  controller: 'Pod and Node events that can change where volumes must be attached',
  attacher: 'Pods scheduled: poll the VolumeAttachments kube-controller-manager creates for them',
};

/** EC2 instances going down: their volumes can be detached (at once when stopped or terminated). */
const EC2_STATE_CHANGE_PATTERN: events.EventPattern = {
  source: [EC2_SOURCE],
  detailType: [EC2_STATE_CHANGE_DETAIL_TYPE],
  detail: { state: [...EC2_STOPPING_STATES] },
};

export interface ScheduleProps {
  expression: string;
  fn: ControllerFunction;
  /** Receives the invocations Scheduler could not deliver. */
  deadLetterQueue: sqs.IQueue;
}

/** EventBridge Scheduler invokes the scheduled function asynchronously with `{ "pass": "full" }`. */
export function scheduleFullPass(scope: Construct, id: string, props: ScheduleProps): scheduler.Schedule {
  return scheduleInvocation(scope, id, props, {
    input: FULL_PASS_INPUT,
    what: 'invoke the full reconcile pass',
    description: 'Full reconcile pass: the safety net behind the event-driven targeted passes',
  });
}

/**
 * The same schedule starts the watcher with `{ "pass": "watch" }`: each tick either finds a live
 * watcher (and ends at once) or starts the next one within the last minute of the current one.
 */
export function scheduleWatcher(scope: Construct, id: string, props: ScheduleProps): scheduler.Schedule {
  return scheduleInvocation(scope, id, props, {
    input: WATCH_INPUT,
    what: 'invoke the watcher',
    description: 'Watcher: keeps one list+watch alive, the next one starting before the current one ends',
  });
}

function scheduleInvocation(
  scope: Construct,
  id: string,
  props: ScheduleProps,
  target: { input: object; what: string; description: string },
): scheduler.Schedule {
  const role = new iam.Role(scope, `${id}Role`, {
    assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
    }),
    description: `EventBridge Scheduler: ${target.what}`,
  });
  Validations.of(role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${Stack.of(scope).getLogicalId(props.fn.function.node.defaultChild as CfnElement)}.Arn>:*]`,
    reason: "Scheduler's Lambda target grants invoke on the function and its versions/aliases (ARN:*); the function is ours alone.",
  });
  return new scheduler.Schedule(scope, id, {
    description: target.description,
    schedule: scheduler.ScheduleExpression.expression(props.expression),
    target: new schedulerTargets.LambdaInvoke(props.fn.function, {
      role,
      input: scheduler.ScheduleTargetInput.fromObject(target.input),
      deadLetterQueue: props.deadLetterQueue,
      // A tick that cannot be delivered within a minute is superseded by the next one.
      retryAttempts: 2,
      maxEventAge: Duration.minutes(1),
    }),
  });
}

export interface ClusterEventRouteProps {
  mode: OperatingMode;
  eventBusName: string;
  queue: EventQueue;
}

/** The custom bus the exporter writes to, and the rule that forwards interesting events to SQS. */
export class ClusterEventRoute extends Construct {
  readonly bus: events.EventBus;
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: ClusterEventRouteProps) {
    super(scope, id);
    this.bus = new events.EventBus(this, 'Bus', {
      eventBusName: props.eventBusName,
      description: 'Kubernetes core/v1 Events put by kubernetes-event-exporter',
    });
    this.rule = new events.Rule(this, 'Rule', {
      eventBus: this.bus,
      description: RULE_DESCRIPTIONS[props.mode],
      eventPattern: clusterEventPattern(props.mode),
      targets: [props.queue.asRuleTarget()],
    });
  }
}

/** Instance state changes arrive on the account's default bus. */
export function routeEc2StateChanges(scope: Construct, id: string, queue: EventQueue): events.Rule {
  return new events.Rule(scope, id, {
    description: 'EC2 instances stopping or terminating: detach their volumes',
    eventPattern: EC2_STATE_CHANGE_PATTERN,
    targets: [queue.asRuleTarget()],
  });
}
