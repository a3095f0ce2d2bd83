/**
 * The attach/detach controller for one EKS cluster: state table, the functions sharing one role
 * (full pass, watcher, EC2 events, and with the event exporter the cluster events), the schedule
 * and event routes that trigger them, alarms and a dashboard.
 */
import { Aws, CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { parseTagList, type TagScheme } from '../lambda/core/tag-scheme.js';
import { HANDLER_ENTRIES } from './contracts.js';
import { controllerEnvironment } from './environment.js';
import { ControllerFunction } from './constructs/controller-function.js';
import { FULL_PASS_SIZE, TARGETED_PASS_SIZE, WATCHER_SIZE, type FunctionSize } from './function-sizes.js';
import { EventQueue, secureQueue } from './constructs/event-queue.js';
import { acknowledgeTracingWildcard, grantBudgetTable, grantController } from './constructs/permissions.js';
import { StateTable } from './constructs/state-table.js';
import { ClusterEventRoute, routeEc2StateChanges, scheduleFullPass, scheduleWatcher } from './constructs/triggers.js';
import { VpcAccess } from './constructs/vpc-access.js';
import { ControllerAlarms } from './observability/alarms.js';
import { ControllerDashboard } from './observability/dashboard.js';
import type { OperatingMode, StackSettings } from './settings.js';

export interface AttachDetachStackProps extends StackProps {
  settings: StackSettings;
}

const sized = (size: FunctionSize) => ({ memorySize: size.memoryMb, timeout: Duration.seconds(size.timeoutSeconds) });
const TARGETED_PASS = sized(TARGETED_PASS_SIZE);

const WATCHER_DESCRIPTION = 'Watcher: list+watch, a targeted pass for each change';
const WATCHER_CONCURRENCY = 3;

const CLUSTER_EVENT_PASS: Record<OperatingMode, string> = {
  controller: 'Targeted pass for Kubernetes Pod and Node events',
  attacher: 'Targeted pass for pods scheduled: polls the VolumeAttachments kcm creates for them',
};

export class AttachDetachStack extends Stack {
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: AttachDetachStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const state = new StateTable(this, 'State');
    // One role for all three functions: one principal to map in the cluster's access entries.
    this.role = new iam.Role(this, 'ControllerRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `EBS attach/detach controller for EKS cluster ${settings.clusterName}`,
    });
    // The same AWS permissions in both modes: either way our role alone attaches and detaches.
    grantController(this, this.role, { table: state.table, tags: tagSchemeOf(settings), kmsKeyArns: settings.kmsKeyArns });
    if (settings.ec2BudgetTableName) grantBudgetTable(this.role, settings.ec2BudgetTableName);
    const vpcAccess = settings.vpc && new VpcAccess(this, 'VpcAccess', { settings: settings.vpc, role: this.role });

    const fullPass = sized({ ...FULL_PASS_SIZE, memoryMb: settings.fullPassMemoryMb });
    const fnProps = (entry: string, size: typeof TARGETED_PASS, description: string) => ({
      entry,
      description,
      role: this.role,
      reservedConcurrency: settings.reservedConcurrency,
      environment: { ...controllerEnvironment(settings, state.table.tableName), ...vpcAccess?.environment },
      network: vpcAccess?.network,
      ...size,
    });
    const scheduledDlq = secureQueue(this, 'ScheduledPassDeadLetterQueue', { retentionPeriod: Duration.days(14) });
    const scheduled = new ControllerFunction(this, 'ScheduledPass', {
      ...fnProps(HANDLER_ENTRIES.scheduled, fullPass, 'Full reconcile pass'),
      asyncDeadLetterQueue: scheduledDlq,
      // Ticks queued behind busy passes are stale once the next one is due.
      asyncMaxEventAge: Duration.minutes(1),
    });
    const ec2Event = new ControllerFunction(
      this,
      'Ec2EventPass',
      fnProps(HANDLER_ENTRIES.ec2Event, TARGETED_PASS, 'Targeted pass for EC2 instance state changes'),
    );
    const functions: Record<string, ControllerFunction> = { Scheduled: scheduled, Ec2Event: ec2Event };
    const deadLetterQueues: Record<string, sqs.IQueue> = { ScheduledPass: scheduledDlq };
    const queues: Record<string, sqs.IQueue> = {};

    scheduleFullPass(this, 'FullPassSchedule', { expression: settings.schedule, fn: scheduled, deadLetterQueue: scheduledDlq });
    if (settings.watcher === 'on') {
      const watcherDlq = secureQueue(this, 'WatcherDeadLetterQueue', { retentionPeriod: Duration.days(14) });
      functions.Watcher = new ControllerFunction(this, 'Watcher', {
        ...fnProps(HANDLER_ENTRIES.watcher, sized({ ...WATCHER_SIZE, memoryMb: settings.watcherMemoryMb }), WATCHER_DESCRIPTION),
        // Two watchers live at most, and the tick that finds them: a third is the most that ever runs.
        reservedConcurrency: WATCHER_CONCURRENCY,
        asyncDeadLetterQueue: watcherDlq,
        asyncMaxEventAge: Duration.minutes(1),
      });
      scheduleWatcher(this, 'WatcherSchedule', { expression: settings.schedule, fn: functions.Watcher, deadLetterQueue: watcherDlq });
      deadLetterQueues.Watcher = watcherDlq;
    }
    const exporter =
      settings.eventExporter === 'on'
        ? this.eventExporter(settings, fnProps(HANDLER_ENTRIES.clusterEvent, TARGETED_PASS, CLUSTER_EVENT_PASS[settings.mode]))
        : undefined;
    if (exporter) {
      functions.ClusterEvent = exporter.fn;
      deadLetterQueues.ClusterEvents = exporter.queue.deadLetterQueue;
      queues.ClusterEvents = exporter.queue.queue;
    }
    const ec2Events = new EventQueue(this, 'Ec2Events', { consumerTimeout: TARGETED_PASS.timeout });
    routeEc2StateChanges(this, 'Ec2StateChangeRule', ec2Events);
    ec2Events.bindTo(ec2Event, settings.reservedConcurrency);
    deadLetterQueues.Ec2Events = ec2Events.deadLetterQueue;
    queues.Ec2Events = ec2Events.queue;

    acknowledgeTracingWildcard(this.role);
    // Lambda checks the role's network-interface permissions when it creates a function in a VPC.
    if (vpcAccess) for (const fn of Object.values(functions)) fn.function.node.addDependency(vpcAccess.networkInterfacePolicy);

    const alarms = new ControllerAlarms(this, 'Alarms', {
      clusterName: settings.clusterName,
      functions,
      deadLetterQueues,
      fullPassStaleMinutes: settings.fullPassStaleMinutes,
      watcher: settings.watcher === 'on',
      topic: alarmTopic(this, settings.alarmTopicArn),
    });
    new ControllerDashboard(this, 'Dashboard', {
      clusterName: settings.clusterName,
      functions,
      alarms: alarms.alarms,
      queues: { ...queues, ...deadLetterLabels(deadLetterQueues) },
    });

    new CfnOutput(this, 'ControllerRoleArn', { value: this.role.roleArn, description: 'Principal of the EKS access entry' });
    new CfnOutput(this, 'StateTableName', { value: state.table.tableName });
    if (exporter) {
      new CfnOutput(this, 'EventBusName', { value: exporter.route.bus.eventBusName });
      new CfnOutput(this, 'EventBusArn', { value: exporter.route.bus.eventBusArn });
      new CfnOutput(this, 'ExporterPolicyArn', {
        value: exporter.policy.managedPolicyArn,
        description: "Attach to the event exporter's IRSA or Pod Identity role",
      });
    }
    new CfnOutput(this, 'AlarmTopicArn', { value: alarms.topic.topicArn, description: 'Subscribe to be told of every alarm' });
    if (vpcAccess) {
      new CfnOutput(this, 'FunctionSecurityGroupId', {
        value: vpcAccess.securityGroup.securityGroupId,
        description: 'Allow HTTPS from this group on the cluster security group and on an existing EC2 endpoint',
      });
    }
  }

  /** kubernetes-event-exporter's bus and rule, the queue behind it, the function it feeds, and the exporter's PutEvents policy. */
  private eventExporter(settings: StackSettings, fn: ConstructorParameters<typeof ControllerFunction>[2]) {
    const clusterEvent = new ControllerFunction(this, 'ClusterEventPass', fn);
    const queue = new EventQueue(this, 'ClusterEvents', { consumerTimeout: TARGETED_PASS.timeout });
    const route = new ClusterEventRoute(this, 'ClusterEventRoute', { mode: settings.mode, eventBusName: settings.eventBusName, queue });
    queue.bindTo(clusterEvent, settings.reservedConcurrency);
    return { fn: clusterEvent, queue, route, policy: exporterPutEventsPolicy(this, route) };
  }
}

/**
 * The topic every alarm notifies: the one given (`alarmTopicArn`), or one of the stack's own. Ours
 * is encrypted with a key of its own, because CloudWatch cannot use the AWS-managed `alias/aws/sns`
 * (its policy cannot be changed and does not name CloudWatch): the key lets CloudWatch encrypt for
 * this account's alarms, and the topic lets it publish for them (the conditions keep another
 * account's alarms from using either, the confused deputy). TLS only.
 */
function alarmTopic(scope: Construct, topicArn: string | undefined): sns.ITopic {
  if (topicArn) return sns.Topic.fromTopicArn(scope, 'AlarmTopic', topicArn);
  const cloudWatch = new iam.ServicePrincipal('cloudwatch.amazonaws.com');
  const thisAccount = { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } };
  const key = new kms.Key(scope, 'AlarmTopicKey', {
    description: 'EBS attach/detach controller: encrypts the alarm topic; CloudWatch alarms of this account may use it',
    enableKeyRotation: true,
  });
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'CloudWatchAlarmsOfThisAccount',
      principals: [cloudWatch],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      resources: ['*'],
      conditions: thisAccount,
    }),
  );
  const topic = new sns.Topic(scope, 'AlarmTopic', {
    displayName: 'EBS attach/detach controller alarms',
    masterKey: key,
    enforceSSL: true,
  });
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'CloudWatchAlarmsOfThisAccount',
      principals: [cloudWatch],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        ...thisAccount,
        ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*` },
      },
    }),
  );
  return topic;
}

function deadLetterLabels<T>(queues: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(queues).map(([name, queue]) => [`${name} dead-letter`, queue]));
}

/** For the exporter's IRSA / Pod Identity role: PutEvents on the cluster's bus and nothing else. */
function exporterPutEventsPolicy(scope: Construct, route: ClusterEventRoute): iam.ManagedPolicy {
  return new iam.ManagedPolicy(scope, 'ExporterPutEventsPolicy', {
    description: "kubernetes-event-exporter: put Kubernetes events on the controller's bus",
    statements: [
      new iam.PolicyStatement({
        sid: 'PutClusterEvents',
        actions: ['events:PutEvents'],
        resources: [route.bus.eventBusArn],
      }),
    ],
  });
}

/** The scheme the settings name, resolved for this cluster (readSettings already refused bad entries). */
function tagSchemeOf(settings: StackSettings): TagScheme {
  return {
    volume: parseTagList(settings.volumeTags, 'volume', settings.clusterName).tags,
    instance: parseTagList(settings.instanceTags, 'instance', settings.clusterName).tags,
  };
}
