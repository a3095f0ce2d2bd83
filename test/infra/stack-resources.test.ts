import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_EVENT_REASONS } from '../../lambda/handlers/contracts.js';
import { loadConfig } from '../../lambda/config.js';
import { SYNTH_TIMEOUT_MS, TEST_CA, resourceId, synthesize } from './synth.js';

let template: Template;
beforeAll(() => {
  ({ template } = synthesize());
}, SYNTH_TIMEOUT_MS);

const fnId = (name: string) => resourceId(template, 'AWS::Lambda::Function', name);
const functionProperties = (name: string) =>
  (template.toJSON() as { Resources: Record<string, { Properties: Record<string, unknown> }> }).Resources[fnId(name)]?.Properties;
const queueArn = (prefix: string) => ({ 'Fn::GetAtt': [resourceId(template, 'AWS::SQS::Queue', prefix), 'Arn'] });

describe('state table', () => {
  it('is keyed by pk alone, on-demand, PITR, deletion-protected, encrypted, with a ttl attribute, and retained', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      Properties: {
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
        SSESpecification: { SSEEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });
});

describe('functions', () => {
  it.each([
    ['ScheduledPass', 1769, 300, 5],
    ['ClusterEventPass', 512, 120, 5],
    ['Ec2EventPass', 512, 120, 5],
    ['Watcher', 512, 300, 3],
  ])('%s runs Node 24 on ARM64 with %i MB, a %i s timeout, tracing and reserved concurrency %i', (name, memory, timeout, concurrency) => {
    expect(functionProperties(`${name}Function`)).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: memory,
      Timeout: timeout,
      ReservedConcurrentExecutions: concurrency,
      TracingConfig: { Mode: 'Active' },
      LoggingConfig: { LogGroup: { Ref: resourceId(template, 'AWS::Logs::LogGroup', `${name}Logs`) } },
    });
    const variables = (functionProperties(`${name}Function`)?.Environment as { Variables: Record<string, string> }).Variables;
    const env = { ...variables, TABLE_NAME: 'state-table', AWS_REGION: 'eu-west-1' };
    // Leases follow each invocation's own end, so the stack sets no lease at all.
    expect(variables).not.toHaveProperty('LEASE_MARGIN_SECONDS');
    expect(loadConfig(env, 'lambda').plan.leaseMarginMs).toBe(15_000);
    expect(timeout).toBeGreaterThan(0);
  });

  // CDK stages one asset per hash of the asset's options as JSON, where a `tryBundle` function is
  // nothing: options alike for two handlers would ship the first one's bundle as both.
  it("gives each function its own handler's bundle as code", () => {
    const names = ['ScheduledPass', 'ClusterEventPass', 'Ec2EventPass', 'Watcher'];
    const keys = names.map((name) => (functionProperties(`${name}Function`)?.Code as { S3Key: string }).S3Key);
    expect(new Set(keys).size).toBe(names.length);
  });

  it("gives every function its mode, writes (explicit: the handlers derive it from the mode), what identifies the cluster, the role's tag conditions and only the settings that differ from the handlers' defaults", () => {
    const functions = template.findResources('AWS::Lambda::Function');
    expect(Object.keys(functions)).toHaveLength(4);
    for (const [id, fn] of Object.entries(functions)) {
      const { LEASE_SECONDS: _lease, ...variables } = (fn as { Properties: { Environment: { Variables: Record<string, unknown> } } })
        .Properties.Environment.Variables;
      // The watcher's Kubernetes client keeps up with the EC2 budget (a dozen requests a change).
      const watcherOnly = id.startsWith('WatcherFunction') ? { KUBE_API_QPS: '50', KUBE_API_BURST: '100' } : {};
      expect(variables).toEqual({
        OPERATING_MODE: 'controller',
        WRITES: 'on',
        TABLE_NAME: { Ref: resourceId(template, 'AWS::DynamoDB::Table', 'StateTable') },
        CLUSTER_NAME: 'prod',
        CLUSTER_ENDPOINT: 'https://ABC123.gr7.eu-west-1.eks.amazonaws.com',
        CLUSTER_CA: TEST_CA,
        // Always said, though they are the defaults: the controller names what a refused volume lacks from them.
        VOLUME_TAGS: 'cluster-name,kubernetes-cluster',
        INSTANCE_TAGS: 'eks-nodegroup,eks-auto-mode,cluster-name,kubernetes-cluster',
        ...watcherOnly,
      });
    }
  });

  it.each(['ScheduledPassFunction', 'ClusterEventPassFunction', 'Ec2EventPassFunction', 'WatcherFunction'])(
    "%s: the handlers' own configuration loader accepts its environment as a Lambda one",
    (name) => {
      const variables = (functionProperties(name)?.Environment as { Variables: Record<string, unknown> }).Variables;
      const env = { ...variables, TABLE_NAME: 'state-table', AWS_REGION: 'eu-west-1' } as Record<string, string>;
      const config = loadConfig(env, 'lambda');
      expect(config).toMatchObject({
        tableName: 'state-table',
        clusterName: 'prod',
        kube: { kind: 'eks', endpoint: 'https://ABC123.gr7.eu-west-1.eks.amazonaws.com', caData: TEST_CA },
        serviceName: 'ebs-attach-detach',
        metricsNamespace: 'EbsAttachDetach',
      });
    },
  );

  it("keeps each function's logs for a month in its own log group", () => {
    template.resourcePropertiesCountIs('AWS::Logs::LogGroup', { RetentionInDays: 30 }, 4);
  });

  it('sends failed or stale scheduled invocations to an SQS DLQ without Lambda retries', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      MemorySize: 1769,
      DeadLetterConfig: { TargetArn: queueArn('ScheduledPassDeadLetterQueue') },
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fnId('ScheduledPassFunction') },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
  });
});

describe('triggers', () => {
  it('runs the full pass every minute through EventBridge Scheduler with { "pass": "full" }', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: { 'Fn::GetAtt': [fnId('ScheduledPassFunction'), 'Arn'] },
        Input: '{"pass":"full"}',
        DeadLetterConfig: { Arn: queueArn('ScheduledPassDeadLetterQueue') },
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 60 },
        RoleArn: Match.anyValue(),
      },
    });
  });

  it('starts the watcher on the same schedule with { "pass": "watch" }; a failed or stale start goes to its DLQ, never retried', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      Target: Match.objectLike({
        Arn: { 'Fn::GetAtt': [fnId('WatcherFunction'), 'Arn'] },
        Input: '{"pass":"watch"}',
        DeadLetterConfig: { Arn: queueArn('WatcherDeadLetterQueue') },
      }),
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fnId('WatcherFunction') },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
  });

  it("creates the exporter's bus, named from context, and routes Pod and Node events of the reasons that move volumes", () => {
    template.hasResourceProperties('AWS::Events::EventBus', { Name: 'prod-kubernetes-events' });
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: resourceId(template, 'AWS::Events::EventBus', 'ClusterEventRouteBus') },
      EventPattern: {
        source: ['kubernetes-event-exporter'],
        'detail-type': ['Kubernetes Event'],
        detail: { involvedObject: { kind: ['Pod', 'Node'] }, reason: [...CLUSTER_EVENT_REASONS] },
      },
      Targets: [
        Match.objectLike({
          Arn: queueArn('ClusterEventsQueue'),
          DeadLetterConfig: { Arn: queueArn('ClusterEventsDeadLetterQueue') },
        }),
      ],
    });
  });

  it('routes EC2 instances stopping or terminating from the default bus', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: Match.absent(),
      EventPattern: {
        source: ['aws.ec2'],
        'detail-type': ['EC2 Instance State-change Notification'],
        detail: { state: ['stopping', 'stopped', 'shutting-down', 'terminated'] },
      },
      Targets: [Match.objectLike({ Arn: queueArn('Ec2EventsQueue'), DeadLetterConfig: { Arn: queueArn('Ec2EventsDeadLetterQueue') } })],
    });
  });

  it.each([
    ['ClusterEventsQueue', 'ClusterEventPassFunction'],
    ['Ec2EventsQueue', 'Ec2EventPassFunction'],
  ])('feeds %s to %s in batches of 100 with a 1 s window, partial batch failures and bounded pollers', (queue, fn) => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: queueArn(queue),
      FunctionName: { Ref: fnId(fn) },
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 5 },
    });
  });
});

describe('queues', () => {
  it.each(['ClusterEvents', 'Ec2Events'])('%s redrives to its DLQ after 5 receives, with a visibility of 6 × timeout + window', (name) => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: queueArn(`${name}DeadLetterQueue`), maxReceiveCount: 5 },
      VisibilityTimeout: 6 * 120 + 1,
      MessageRetentionPeriod: 86_400,
      SqsManagedSseEnabled: true,
    });
  });

  it('encrypts every queue and keeps dead letters for 14 days', () => {
    template.resourcePropertiesCountIs('AWS::SQS::Queue', { SqsManagedSseEnabled: true }, 6);
    template.resourcePropertiesCountIs('AWS::SQS::Queue', { MessageRetentionPeriod: 14 * 86_400 }, 4);
  });

  it('denies every queue access without TLS', () => {
    const denyPlainText = Match.arrayWith([
      Match.objectLike({
        Effect: 'Deny',
        Action: 'sqs:*',
        Principal: { AWS: '*' },
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    ]);
    template.resourcePropertiesCountIs('AWS::SQS::QueuePolicy', { PolicyDocument: { Statement: denyPlainText } }, 6);
  });
});
