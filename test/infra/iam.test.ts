import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/contracts.js';
import { SYNTH_TIMEOUT_MS, resourceId, synthesize } from './synth.js';

let template: Template;
beforeAll(() => {
  ({ template } = synthesize());
}, SYNTH_TIMEOUT_MS);

type Resource = { Properties: Record<string, unknown> };
const resource = (type: string, prefix: string) =>
  (template.toJSON() as { Resources: Record<string, Resource> }).Resources[resourceId(template, type, prefix)] as Resource;
const statements = (type: string, prefix: string) =>
  (resource(type, prefix).Properties.PolicyDocument as { Statement: unknown[] }).Statement;
const arnOf = (type: string, prefix: string) => ({ 'Fn::GetAtt': [resourceId(template, type, prefix), 'Arn'] });
const regional = (resourcePath: string, service = 'ec2') => ({
  'Fn::Join': [
    '',
    ['arn:', { Ref: 'AWS::Partition' }, `:${service}:`, { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:${resourcePath}`],
  ],
});
const SQS_CONSUME = ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueUrl', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];
const LOG_WRITE = ['logs:CreateLogStream', 'logs:PutLogEvents'];

describe('controller role', () => {
  it('is assumable by Lambda only and carries no managed policy', () => {
    expect(resource('AWS::IAM::Role', 'ControllerRole').Properties).toMatchObject({
      AssumeRolePolicyDocument: {
        Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }],
      },
    });
    expect(resource('AWS::IAM::Role', 'ControllerRole').Properties.ManagedPolicyArns).toBeUndefined();
  });

  /** Every policy attached to the controller role, default policy first. */
  const controllerStatements = () =>
    ['ControllerRoleDefaultPolicy', 'AttachDetachPolicy', 'DescribePolicy'].flatMap((prefix) => statements('AWS::IAM::Policy', prefix));

  it('attaches the wildcard EC2 grants as policies of their own, to the controller role only', () => {
    for (const prefix of ['AttachDetachPolicy', 'DescribePolicy']) {
      expect(resource('AWS::IAM::Policy', prefix).Properties.Roles).toEqual([
        { Ref: resourceId(template, 'AWS::IAM::Role', 'ControllerRole') },
      ]);
    }
    const tagged = (sid: string, type: string, key: string, value: string) => ({
      Sid: sid,
      Effect: 'Allow',
      Action: ['ec2:AttachVolume', 'ec2:DetachVolume'],
      Resource: regional(`${type}/*`),
      Condition: { StringEquals: { [`aws:ResourceTag/${key}`]: value } },
    });
    expect(statements('AWS::IAM::Policy', 'AttachDetachPolicy')).toEqual([
      tagged('AttachDetachVolumeTagged1', 'volume', 'ebs.csi.aws.com/cluster-name', 'prod'),
      tagged('AttachDetachVolumeTagged2', 'volume', 'kubernetes.io/cluster/prod', 'owned'),
      tagged('AttachDetachInstanceTagged1', 'instance', 'eks:cluster-name', 'prod'),
      tagged('AttachDetachInstanceTagged2', 'instance', 'eks:eks-cluster-name', 'prod'),
      tagged('AttachDetachInstanceTagged3', 'instance', 'ebs.csi.aws.com/cluster-name', 'prod'),
      tagged('AttachDetachInstanceTagged4', 'instance', 'kubernetes.io/cluster/prod', 'owned'),
    ]);
    expect(statements('AWS::IAM::Policy', 'DescribePolicy')).toEqual([
      {
        Sid: 'DescribeVolumesAndInstances',
        Effect: 'Allow',
        Action: ['ec2:DescribeVolumes', 'ec2:DescribeInstances'],
        Resource: '*',
        Condition: { StringEquals: { 'aws:RequestedRegion': { Ref: 'AWS::Region' } } },
      },
    ]);
  });

  it('allows exactly the calls the adapters make, each on the narrowest resource', () => {
    expect(statements('AWS::IAM::Policy', 'ControllerRoleDefaultPolicy')).toEqual([
      {
        Sid: 'VolumeStore',
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Scan', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        Resource: arnOf('AWS::DynamoDB::Table', 'StateTable'),
      },
      { Effect: 'Allow', Action: LOG_WRITE, Resource: arnOf('AWS::Logs::LogGroup', 'ScheduledPassLogs') },
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: arnOf('AWS::SQS::Queue', 'ScheduledPassDeadLetterQueue') },
      { Effect: 'Allow', Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Resource: '*' },
      { Effect: 'Allow', Action: LOG_WRITE, Resource: arnOf('AWS::Logs::LogGroup', 'Ec2EventPassLogs') },
      { Effect: 'Allow', Action: LOG_WRITE, Resource: arnOf('AWS::Logs::LogGroup', 'WatcherLogs') },
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: arnOf('AWS::SQS::Queue', 'WatcherDeadLetterQueue') },
      { Effect: 'Allow', Action: LOG_WRITE, Resource: arnOf('AWS::Logs::LogGroup', 'ClusterEventPassLogs') },
      { Effect: 'Allow', Action: SQS_CONSUME, Resource: arnOf('AWS::SQS::Queue', 'ClusterEventsQueue') },
      { Effect: 'Allow', Action: SQS_CONSUME, Resource: arnOf('AWS::SQS::Queue', 'Ec2EventsQueue') },
    ]);
  });

  it('grants the DynamoDB and EC2 actions of exactly the commands the adapters send', () => {
    const sent = (service: 'dynamodb' | 'ec2') => {
      const dir = path.join(REPO_ROOT, 'lambda/adapters', service);
      const source = readdirSync(dir, { recursive: true })
        .map(String)
        .filter((file) => file.endsWith('.ts'))
        .map((file) => readFileSync(path.join(dir, file), 'utf8'))
        .join('\n');
      const commands = [...source.matchAll(/\bnew (\w+)Command\(|\bpaginate(\w+)\(/g)].map((m) => (m[1] ?? m[2]) as string);
      return [...new Set(commands)].map((command) => `${service}:${command}`);
    };
    const granted = (controllerStatements() as { Action: string | string[] }[])
      .flatMap((statement) => statement.Action)
      .filter((action) => /^(dynamodb|ec2):/.test(action));
    // One statement per required tag: the same two actions several times, each under one condition.
    expect([...new Set(granted)].sort()).toEqual([...sent('dynamodb'), ...sent('ec2')].sort());
  });
});

describe('scheduler role', () => {
  it('is assumable by EventBridge Scheduler from this account only', () => {
    expect(resource('AWS::IAM::Role', 'FullPassScheduleRole').Properties.AssumeRolePolicyDocument).toMatchObject({
      Statement: [
        {
          Action: 'sts:AssumeRole',
          Principal: { Service: 'scheduler.amazonaws.com' },
          Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
        },
      ],
    });
  });

  it('may only invoke the scheduled function and write to its DLQ', () => {
    const fnArn = arnOf('AWS::Lambda::Function', 'ScheduledPassFunction');
    expect(statements('AWS::IAM::Policy', 'FullPassScheduleRoleDefaultPolicy')).toEqual([
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: [fnArn, { 'Fn::Join': ['', [fnArn, ':*']] }] },
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: arnOf('AWS::SQS::Queue', 'ScheduledPassDeadLetterQueue') },
    ]);
  });
});

describe('event exporter policy', () => {
  it("allows PutEvents on the cluster's bus and nothing else", () => {
    expect(statements('AWS::IAM::ManagedPolicy', 'ExporterPutEventsPolicy')).toEqual([
      {
        Sid: 'PutClusterEvents',
        Effect: 'Allow',
        Action: 'events:PutEvents',
        Resource: arnOf('AWS::Events::EventBus', 'ClusterEventRouteBus'),
      },
    ]);
  });

  it("is exported with the bus for the exporter's IRSA or Pod Identity role", () => {
    const outputs = template.toJSON() as { Outputs: Record<string, { Value: unknown }> };
    expect(Object.keys(outputs.Outputs).sort()).toEqual([
      'AlarmTopicArn',
      'ControllerRoleArn',
      'EventBusArn',
      'EventBusName',
      'ExporterPolicyArn',
      'StateTableName',
    ]);
    expect(outputs.Outputs.ExporterPolicyArn?.Value).toEqual({
      Ref: resourceId(template, 'AWS::IAM::ManagedPolicy', 'ExporterPutEventsPolicy'),
    });
  });
});
