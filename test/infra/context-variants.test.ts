/**
 * Every context key reaches the resource it configures: one synthesis with all of them changed
 * from their defaults (the other stack tests use the defaults).
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { Metric } from '../../lambda/observability/metric-names.js';
import type { AttachDetachStack } from '../../infra/stack.js';
import { SYNTH_TIMEOUT_MS, resourceId, synthesize } from './synth.js';

const KEY = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const OTHER_KEY = 'arn:aws:kms:eu-west-1:123456789012:key/5678abcd-12ab-34cd-56ef-1234567890ab';

let template: Template;
let stack: AttachDetachStack;
beforeAll(() => {
  ({ template, stack } = synthesize({
    clusterName: 'other',
    schedule: 'cron(0/2 * * * ? *)',
    reservedConcurrency: '3',
    syncPeriodSeconds: '120',
    maxWaitForUnmountSeconds: 'disabled',
    eventBusName: 'k8s-events',
    volumeTags: 'csi-any-cluster',
    instanceTags: 'eks-nodegroup',
    alarmTopicArn: '',
    fullPassStaleMinutes: '20',
    fullPassMemoryMb: '3008',
    ec2BudgetTableName: 'ebs-attach-detach-ec2-budget',
    outOfServiceTaint: 'off',
    leaseFence: 'on',
    leaseFenceNamespace: 'ebs-csi',
    leaseFenceName: 'external-attacher-leader-ebs-csi-aws-com-2',
    writes: 'off',
    sidecarGone: 'true',
    kmsKeyArns: `${KEY},${OTHER_KEY}`,
  }));
}, SYNTH_TIMEOUT_MS);

const variables = () =>
  Object.values(template.findResources('AWS::Lambda::Function')).map(
    (fn) => (fn as { Properties: { Environment: { Variables: Record<string, unknown> } } }).Properties.Environment.Variables,
  );

describe('context', () => {
  it('names the stack after the cluster', () => {
    expect(stack.stackName).toBe('ebs-attach-detach-other');
  });

  it('passes cluster name, sync period, the disabled unmount wait, the taint switched off, the fence and its Lease, writes off, the gone sidecar and the KMS keys to every function', () => {
    for (const env of variables()) {
      expect(env).toMatchObject({
        CLUSTER_NAME: 'other',
        SYNC_PERIOD_SECONDS: '120',
        MAX_WAIT_FOR_UNMOUNT_SECONDS: 'disabled',
        OUT_OF_SERVICE_TAINT: 'off',
        LEASE_FENCE: 'on',
        LEASE_FENCE_NAMESPACE: 'ebs-csi',
        LEASE_FENCE_NAME: 'external-attacher-leader-ebs-csi-aws-com-2',
        WRITES: 'off',
        SIDECAR_GONE: 'true',
        // The keys the role may grant on, so the preflight names a volume under another.
        KMS_KEY_ARNS: `${KEY},${OTHER_KEY}`,
      });
    }
  });

  it('sizes the full pass function as asked, and only it', () => {
    const sizes = Object.values(template.findResources('AWS::Lambda::Function')).map((fn) => [
      (fn as { Properties: { Description: string } }).Properties.Description,
      (fn as { Properties: { MemorySize: number } }).Properties.MemorySize,
    ]);
    expect(Object.fromEntries(sizes)).toMatchObject({ 'Full reconcile pass': 3008, 'Targeted pass for EC2 instance state changes': 512 });
  });

  it('points every function at the shared EC2 budget table and lets the role read and swap its buckets', () => {
    for (const env of variables()) expect(env).toMatchObject({ EC2_BUDGET_TABLE_NAME: 'ebs-attach-detach-ec2-budget' });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Sid: 'SharedEc2Budget',
            Effect: 'Allow',
            Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
            Resource: {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':dynamodb:',
                  { Ref: 'AWS::Region' },
                  ':',
                  { Ref: 'AWS::AccountId' },
                  ':table/ebs-attach-detach-ec2-budget',
                ],
              ],
            },
          },
        ]),
      },
    });
  });

  it('sets the schedule expression', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'cron(0/2 * * * ? *)' });
  });

  it('reserves the concurrency for each function and caps the SQS pollers at it (the watcher keeps its own three)', () => {
    template.resourcePropertiesCountIs('AWS::Lambda::Function', { ReservedConcurrentExecutions: 3 }, 4);
    template.resourcePropertiesCountIs('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 3 } }, 2);
  });

  it("names the exporter's bus", () => {
    template.hasResourceProperties('AWS::Events::EventBus', { Name: 'k8s-events' });
  });

  it('conditions attach and detach on the chosen tags, key and value', () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'AttachDetachVolumeTagged1',
            Condition: { StringEquals: { 'aws:ResourceTag/ebs.csi.aws.com/cluster': 'true' } },
          }),
          Match.objectLike({
            Sid: 'AttachDetachVolumeTagged2',
            Condition: { StringLike: { 'aws:ResourceTag/kubernetes.io/created-for/pvc/name': '*' } },
          }),
          Match.objectLike({
            Sid: 'AttachDetachInstanceTagged1',
            Condition: { StringEquals: { 'aws:ResourceTag/eks:cluster-name': 'other' } },
          }),
        ]),
      },
    });
  });

  it('waits the configured minutes before the no-full-pass alarm', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([
        Match.objectLike({
          Id: 'fullPasses',
          MetricStat: Match.objectLike({ Metric: Match.objectLike({ MetricName: Metric.PassDuration }), Period: 1200 }),
        }),
      ]),
    });
  });

  it('creates a topic encrypted with its own key, TLS-only, when none is given, and every alarm notifies it', () => {
    const topicId = resourceId(template, 'AWS::SNS::Topic', 'AlarmTopic');
    template.hasResourceProperties('AWS::SNS::Topic', {
      KmsMasterKeyId: { 'Fn::GetAtt': [resourceId(template, 'AWS::KMS::Key', 'AlarmTopicKey'), 'Arn'] },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(19);
    for (const alarm of alarms) {
      expect(alarm).toMatchObject({ Properties: { AlarmActions: [{ Ref: topicId }], OKActions: [{ Ref: topicId }] } });
    }
    template.hasOutput('AlarmTopicArn', { Value: { Ref: topicId } });
  });
});
