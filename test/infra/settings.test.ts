import { describe, expect, it } from 'vitest';
import { type ContextKey, readSettings } from '../../infra/settings.js';
import { TEST_CA } from './synth.js';

/** A context lookup over a plain object, like `app.node.tryGetContext`. */
const lookup = (context: Record<string, unknown>) => (key: ContextKey) => context[key];
const VPC = 'vpc-0a1b2c3d4e5f60718';
const SUBNETS = 'subnet-0a1b2c3d4e5f60718, subnet-0a1b2c3d4e5f60719';
const ROUTES = 'rtb-0a1b2c3d4e5f60718';
const minimal = { clusterName: 'prod', apiEndpoint: 'https://ABC123.gr7.eu-west-1.eks.amazonaws.com', certificateAuthority: TEST_CA };

describe('readSettings', () => {
  it('fills the documented defaults from cluster name, endpoint and CA alone', () => {
    expect(readSettings(lookup(minimal))).toEqual({
      mode: 'controller',
      clusterName: 'prod',
      apiEndpoint: 'https://ABC123.gr7.eu-west-1.eks.amazonaws.com',
      certificateAuthority: TEST_CA,
      schedule: 'rate(1 minute)',
      reservedConcurrency: 5,
      syncPeriodSeconds: 60,
      maxWaitForUnmountSeconds: 360,
      watcher: 'on',
      watcherMemoryMb: 512,
      // The watcher sees every change first: the exporter's route is not made unless asked for.
      eventExporter: 'off',
      eventBusName: 'prod-kubernetes-events',
      volumeTags: 'cluster-name,kubernetes-cluster',
      instanceTags: 'eks-nodegroup,eks-auto-mode,cluster-name,kubernetes-cluster',
      kmsKeyArns: [],
      alarmTopicArn: undefined,
      fullPassStaleMinutes: 10,
      fullPassMemoryMb: 1769,
      vpc: undefined,
      ec2BudgetTableName: undefined,
      outOfServiceTaint: 'on',
      leaseFence: 'off',
      leaseFenceNamespace: 'kube-system',
      leaseFenceName: 'external-attacher-leader-ebs-csi-aws-com',
      writes: 'on',
      sidecarGone: false,
    });
  });

  it.each([
    ['attacher mode alone: a shadow (writes off)', { mode: 'attacher' }, 'off'],
    ['attacher mode with the fence: writes on behind it', { mode: 'attacher', leaseFence: 'on' }, 'on'],
    ['attacher mode with no sidecar left: writes on', { mode: 'attacher', sidecarGone: 'true' }, 'on'],
    ['attacher mode, writes off asked for behind the fence', { mode: 'attacher', leaseFence: 'on', writes: 'off' }, 'off'],
    ['controller mode: writes on', { mode: 'controller' }, 'on'],
  ])('writes by default: %s', (_case, context, writes) => {
    expect(readSettings(lookup({ ...minimal, ...context })).writes).toBe(writes);
  });

  it('refuses writes=on in attacher mode without the fence unless the sidecar is gone, saying both ways out', () => {
    expect(() => readSettings(lookup({ ...minimal, mode: 'attacher', writes: 'on' }))).toThrow(
      /writes[\s\S]*leaseFence=on[\s\S]*sidecarGone=true[\s\S]*two attachers/,
    );
    expect(readSettings(lookup({ ...minimal, mode: 'attacher', writes: 'on', sidecarGone: 'true' }))).toMatchObject({
      writes: 'on',
      sidecarGone: true,
    });
  });

  it("reads the sidecar's Lease namespace and name", () => {
    expect(
      readSettings(lookup({ ...minimal, leaseFenceNamespace: 'ebs', leaseFenceName: 'external-attacher-leader-ebs-csi-aws-com' })),
    ).toMatchObject({ leaseFenceNamespace: 'ebs', leaseFenceName: 'external-attacher-leader-ebs-csi-aws-com' });
  });

  it('coerces the strings `cdk -c key=value` passes', () => {
    const settings = readSettings(
      lookup({
        ...minimal,
        reservedConcurrency: '8',
        syncPeriodSeconds: '30',
        maxWaitForUnmountSeconds: 'disabled',
        fullPassStaleMinutes: '15',
        fullPassMemoryMb: '3008',
      }),
    );
    expect(settings).toMatchObject({
      reservedConcurrency: 8,
      syncPeriodSeconds: 30,
      maxWaitForUnmountSeconds: 'disabled',
      fullPassStaleMinutes: 15,
      fullPassMemoryMb: 3008,
    });
  });

  it('keeps explicit bus name, tag schemes, KMS keys and alarm topic', () => {
    const key = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    const settings = readSettings(
      lookup({
        ...minimal,
        eventBusName: 'k8s-events',
        volumeTags: 'csi-any-cluster',
        instanceTags: 'eks-nodegroup,team/cluster=prod',
        kmsKeyArns: key,
        alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops',
      }),
    );
    expect(settings).toMatchObject({
      eventBusName: 'k8s-events',
      volumeTags: 'csi-any-cluster',
      instanceTags: 'eks-nodegroup,team/cluster=prod',
      kmsKeyArns: [key],
      alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops',
    });
  });

  it('treats empty placeholders (cdk.json "", `-c key=`) as unset', () => {
    const settings = readSettings(lookup({ ...minimal, volumeTags: '', eventBusName: '', alarmTopicArn: '' }));
    expect(settings).toMatchObject({
      eventBusName: 'prod-kubernetes-events',
      volumeTags: 'cluster-name,kubernetes-cluster',
      alarmTopicArn: undefined,
    });
  });

  it.each([
    ['a missing cluster name', { clusterName: undefined }, 'clusterName'],
    ['a cluster name EKS would refuse', { clusterName: '-bad name' }, 'clusterName'],
    ['a plain-http endpoint', { apiEndpoint: 'http://10.0.0.1' }, 'apiEndpoint'],
    ['a missing CA (the functions cannot trust the API server without it)', { certificateAuthority: '' }, 'certificateAuthority'],
    ['a CA that is not a base64 PEM', { certificateAuthority: 'bm90IGEgY2VydA==' }, 'certificateAuthority'],
    ['a schedule that is not rate() or cron()', { schedule: 'every minute' }, 'schedule'],
    ["reserved concurrency below the SQS pollers' floor", { reservedConcurrency: 1 }, 'reservedConcurrency'],
    ['a fractional sync period', { syncPeriodSeconds: '7.5' }, 'syncPeriodSeconds'],
    ['an unmount wait that is neither seconds nor disabled', { maxWaitForUnmountSeconds: 'never' }, 'maxWaitForUnmountSeconds'],
    ['the default bus as the exporter bus', { eventBusName: 'default' }, 'eventBusName'],
    ['an alarm topic that is not an SNS ARN', { alarmTopicArn: 'ops-channel' }, 'alarmTopicArn'],
    ['a free-text volume tag that names no cluster (it would span clusters)', { volumeTags: 'kubernetes.io/role=data' }, 'volumeTags'],
    ['an unknown instance tag scheme', { instanceTags: 'karpenter' }, 'instanceTags'],
    ['the old bare tag key', { clusterTagKey: 'kubernetes.io/cluster/prod' }, 'clusterTagKey'],
    ['a KMS key that is not a key ARN', { kmsKeyArns: 'alias/ebs' }, 'kmsKeyArns'],
    ['a mode other than controller or attacher', { mode: 'sidecar' }, 'mode'],
    ['a VPC id that is not one', { vpcId: 'prod-vpc', subnetIds: SUBNETS, routeTableIds: ROUTES }, 'vpcId'],
    ['a VPC without subnets', { vpcId: VPC }, 'subnetIds'],
    [
      'a subnet list with something else in it',
      { vpcId: VPC, subnetIds: 'subnet-0a1b2c3d4e5f60718,sg-0a1b2c3d', routeTableIds: ROUTES },
      'subnetIds',
    ],
    ['subnets without a VPC', { subnetIds: SUBNETS }, 'subnetIds'],
    ['a cluster security group without a VPC', { clusterSecurityGroupId: 'sg-0a1b2c3d4e5f60718' }, 'clusterSecurityGroupId'],
    ['a DynamoDB endpoint to create without route tables', { vpcId: VPC, subnetIds: SUBNETS }, 'routeTableIds'],
    [
      'an endpoint choice other than create or existing',
      { vpcId: VPC, subnetIds: SUBNETS, routeTableIds: ROUTES, ec2Endpoint: 'no' },
      'ec2Endpoint',
    ],
    ['a taint switch other than on or off', { outOfServiceTaint: 'yes' }, 'outOfServiceTaint'],
    ['a writes switch other than on or off', { writes: 'dry' }, 'writes'],
    ['a sidecarGone other than true or false', { sidecarGone: 'yes' }, 'sidecarGone'],
    ['a Lease namespace Kubernetes would refuse', { leaseFenceNamespace: 'Kube_System' }, 'leaseFenceNamespace'],
    ['a Lease name Kubernetes would refuse', { leaseFenceName: 'Leader!' }, 'leaseFenceName'],
    ['a budget table name DynamoDB would refuse', { ec2BudgetTableName: 'a b' }, 'ec2BudgetTableName'],
    ['a full pass memory a mid-sized cluster outgrows', { fullPassMemoryMb: '512' }, 'fullPassMemoryMb'],
    ["a full pass memory beyond Lambda's largest", { fullPassMemoryMb: 16_384 }, 'fullPassMemoryMb'],
  ])('rejects %s, naming the context key', (_behaviour, override, key) => {
    expect(() => readSettings(lookup({ ...minimal, ...override }))).toThrow(new RegExp(`Invalid CDK context[\\s\\S]*${key}`));
  });

  it('reports every invalid key at once', () => {
    expect(() => readSettings(lookup({ clusterName: 'prod', apiEndpoint: 'nope', schedule: 'x' }))).toThrow(
      /apiEndpoint[\s\S]*schedule|schedule[\s\S]*apiEndpoint/,
    );
  });

  it.each([
    ['unset', undefined, 'controller'],
    ['blank (a cdk.json placeholder)', '', 'controller'],
    ['controller', 'controller', 'controller'],
    ['attacher', 'attacher', 'attacher'],
  ])('reads the mode %s as %s', (_case, mode, expected) => {
    expect(readSettings(lookup({ ...minimal, mode })).mode).toBe(expected);
  });

  it('places the functions in a VPC from comma-separated ids, creating both endpoints unless told they exist', () => {
    expect(readSettings(lookup({ ...minimal, vpcId: VPC, subnetIds: SUBNETS, routeTableIds: ROUTES })).vpc).toEqual({
      vpcId: VPC,
      subnetIds: ['subnet-0a1b2c3d4e5f60718', 'subnet-0a1b2c3d4e5f60719'],
      clusterSecurityGroupId: undefined,
      ec2Endpoint: 'create',
      dynamoDbEndpoint: 'create',
      routeTableIds: ['rtb-0a1b2c3d4e5f60718'],
    });
  });

  it('takes lists from cdk.json as they are, and needs no route tables when both endpoints exist', () => {
    const settings = readSettings(
      lookup({
        ...minimal,
        vpcId: VPC,
        subnetIds: ['subnet-0a1b2c3d4e5f60718'],
        clusterSecurityGroupId: 'sg-0a1b2c3d4e5f60718',
        ec2Endpoint: 'existing',
        dynamoDbEndpoint: 'existing',
      }),
    );
    expect(settings.vpc).toEqual({
      vpcId: VPC,
      subnetIds: ['subnet-0a1b2c3d4e5f60718'],
      clusterSecurityGroupId: 'sg-0a1b2c3d4e5f60718',
      ec2Endpoint: 'existing',
      dynamoDbEndpoint: 'existing',
      routeTableIds: [],
    });
  });

  it('names the shared EC2 budget table', () => {
    expect(readSettings(lookup({ ...minimal, ec2BudgetTableName: 'ebs-attach-detach-ec2-budget' })).ec2BudgetTableName).toBe(
      'ebs-attach-detach-ec2-budget',
    );
  });
});
