/**
 * The synthesized template read the way AWS will read it once deployed: the policies are resolved
 * for one account and region and evaluated by the IAM evaluator the local EC2 uses, so a statement
 * that merely looks right is not enough. One block per finding of issue 27 ("day one in a real
 * AWS account"); each failed on the stack as it was before the fix.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { IamEvaluator, type PolicyDocument } from '../../sandbox/ec2/iam/evaluator.js';
import { resolveIntrinsics, type DeployTarget } from '../../sandbox/ec2/iam/intrinsics.js';
import { rolePolicies, type Template } from '../../sandbox/ec2/iam/role-policies.js';
import { SYNTH_TIMEOUT_MS, resourceId, synthesize, type Synthesized } from './synth.js';

const ACCOUNT = '111122223333';
const OTHER_ACCOUNT = '444455556666';
const REGION = 'eu-west-1';
const KEY = `arn:aws:kms:${REGION}:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;
const VPC = {
  vpcId: 'vpc-0a1b2c3d4e5f60718',
  subnetIds: 'subnet-0a1b2c3d4e5f60718,subnet-0a1b2c3d4e5f60719',
  routeTableIds: 'rtb-0a1b2c3d4e5f60718,rtb-0a1b2c3d4e5f60719',
};

type Resource = { Type: string; Properties: Record<string, unknown> };
let stack: Synthesized;
let resources: Record<string, Resource>;
const iam = new IamEvaluator();

beforeAll(() => {
  // The stack's own alarm topic (no alarmTopicArn), inside a VPC whose EC2 endpoint it creates.
  stack = synthesize({ alarmTopicArn: '', mode: 'attacher', kmsKeyArns: KEY, ...VPC });
  resources = (stack.template.toJSON() as { Resources: Record<string, Resource> }).Resources;
}, SYNTH_TIMEOUT_MS);

const target = (): DeployTarget => {
  const topicId = resourceId(stack.template, 'AWS::SNS::Topic', 'AlarmTopic');
  return {
    partition: 'aws',
    region: REGION,
    accountId: ACCOUNT,
    refs: { [topicId]: topicArn() },
  };
};
const topicArn = () => `arn:aws:sns:${REGION}:${ACCOUNT}:alarms`;
const alarmArn = (account: string) => `arn:aws:cloudwatch:${REGION}:${account}:alarm:prod-PassFailures`;
const resolved = (value: unknown) => resolveIntrinsics(value, target()) as PolicyDocument;

describe('alarm delivery: CloudWatch can publish to the stack’s topic', () => {
  const topic = () => resources[resourceId(stack.template, 'AWS::SNS::Topic', 'AlarmTopic')] as Resource;
  const keyIdOf = () => {
    const masterKey = topic().Properties.KmsMasterKeyId as { 'Fn::GetAtt'?: [string, string] } | string | undefined;
    return typeof masterKey === 'object' ? masterKey['Fn::GetAtt']?.[0] : undefined;
  };
  const publish = (account: string) =>
    iam.decide({
      principal: 'cloudwatch.amazonaws.com',
      action: 'sns:Publish',
      resource: topicArn(),
      accountId: ACCOUNT,
      context: { 'aws:SourceAccount': account, 'aws:SourceArn': alarmArn(account) },
      identityPolicies: [],
      resourcePolicy: resolved(topicPolicy()),
    });
  const topicPolicy = () =>
    Object.values(resources).find((r) => r.Type === 'AWS::SNS::TopicPolicy')?.Properties.PolicyDocument as PolicyDocument;

  it('encrypts the topic with a key of its own (an AWS-managed key cannot let CloudWatch in), or not at all', () => {
    const masterKey = topic().Properties.KmsMasterKeyId;
    if (masterKey === undefined) return;
    expect(keyIdOf(), `KmsMasterKeyId ${JSON.stringify(masterKey)} is not a key of this stack`).toBeDefined();
    expect(resources[keyIdOf() as string]?.Type).toBe('AWS::KMS::Key');
  });

  it.each(['kms:GenerateDataKey', 'kms:Decrypt'])(
    "lets CloudWatch use the topic's key (%s) for this account's alarms only",
    async (action) => {
      const keyId = keyIdOf();
      if (topic().Properties.KmsMasterKeyId === undefined) return;
      expect(keyId).toBeDefined();
      const keyPolicy = resolved((resources[keyId as string] as Resource).Properties.KeyPolicy);
      const use = (account: string) =>
        iam.decide({
          principal: 'cloudwatch.amazonaws.com',
          action,
          resource: `arn:aws:kms:${REGION}:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`,
          accountId: ACCOUNT,
          context: { 'aws:SourceAccount': account, 'aws:SourceArn': alarmArn(account) },
          identityPolicies: [],
          resourcePolicy: keyPolicy,
        });
      expect((await use(ACCOUNT)).allowed).toBe(true);
      expect((await use(OTHER_ACCOUNT)).allowed).toBe(false);
    },
  );

  it("lets cloudwatch.amazonaws.com publish for this account's alarms, and no other account's", async () => {
    expect((await publish(ACCOUNT)).allowed).toBe(true);
    expect((await publish(OTHER_ACCOUNT)).allowed).toBe(false);
  });
});

describe('the VPC option leaves EC2 to the rest of the VPC', () => {
  const endpoints = () => Object.values(resources).filter((r) => r.Type === 'AWS::EC2::VPCEndpoint');
  const functions = () => Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function');

  it('creates no interface endpoint with private DNS (it would take the service away from every other client of the VPC)', () => {
    const interfaces = endpoints().filter((e) => e.Properties.VpcEndpointType === 'Interface');
    expect(interfaces.length).toBeGreaterThan(0);
    for (const endpoint of interfaces) expect(endpoint.Properties.PrivateDnsEnabled).toBe(false);
  });

  it('restricts no gateway endpoint: other clients of those route tables keep reaching the service', () => {
    for (const endpoint of endpoints().filter((e) => e.Properties.VpcEndpointType === 'Gateway')) {
      expect(endpoint.Properties.PolicyDocument).toBeUndefined();
    }
  });

  it("points every function at the EC2 endpoint's own DNS name (AWS_ENDPOINT_URL_EC2)", () => {
    const endpointId = resourceId(stack.template, 'AWS::EC2::VPCEndpoint', 'VpcAccessEc2Endpoint');
    const dnsName = resolveIntrinsics(
      (functions()[0]?.Properties.Environment as { Variables: Record<string, unknown> }).Variables.AWS_ENDPOINT_URL_EC2,
      {
        ...target(),
        attributes: { [endpointId]: { DnsEntries: ['Z7HUB22UULQXV:vpce-0abc-1234.ec2.eu-west-1.vpce.amazonaws.com'] as never } },
      },
    );
    expect(dnsName).toBe('https://vpce-0abc-1234.ec2.eu-west-1.vpce.amazonaws.com');
    for (const fn of functions()) {
      expect((fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables.AWS_ENDPOINT_URL_EC2).toEqual(
        (functions()[0]?.Properties.Environment as { Variables: Record<string, unknown> }).Variables.AWS_ENDPOINT_URL_EC2,
      );
    }
  });
});

describe("the role's policy allows exactly the (action, tags) pairs the docs promise", () => {
  const session = `arn:aws:sts::${ACCOUNT}:assumed-role/ebs-attach-detach-prod-ControllerRole/fn`;
  const policies = () =>
    rolePolicies(stack.template.toJSON() as Template, resourceId(stack.template, 'AWS::IAM::Role', 'ControllerRole'), target());
  const tagContext = (tags: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(tags).flatMap(([key, value]) => [
        [`aws:ResourceTag/${key}`, value],
        [`ec2:ResourceTag/${key}`, value],
      ]),
    );
  const onResource = async (action: string, type: 'volume' | 'instance', tags: Record<string, string>) =>
    (
      await iam.decide({
        principal: session,
        action,
        resource: `arn:aws:ec2:${REGION}:${ACCOUNT}:${type}/${type === 'volume' ? 'vol-0123456789abcdef0' : 'i-0123456789abcdef0'}`,
        accountId: ACCOUNT,
        context: { 'aws:RequestedRegion': REGION, ...tagContext(tags) },
        identityPolicies: policies(),
      })
    ).allowed;

  // docs/eks.md, "Which tags the role requires": the defaults name this cluster on both sides.
  it.each([
    ['a volume tagged ebs.csi.aws.com/cluster-name=prod', 'volume', { 'ebs.csi.aws.com/cluster-name': 'prod' }, true],
    ['a volume tagged kubernetes.io/cluster/prod=owned', 'volume', { 'kubernetes.io/cluster/prod': 'owned' }, true],
    ["another cluster's volume", 'volume', { 'ebs.csi.aws.com/cluster-name': 'staging' }, false],
    ['a volume with the account-wide ebs.csi.aws.com/cluster=true only', 'volume', { 'ebs.csi.aws.com/cluster': 'true' }, false],
    ['a volume with the cluster tag key but another value', 'volume', { 'kubernetes.io/cluster/prod': 'shared' }, false],
    ['an untagged volume', 'volume', {}, false],
    ['a managed node group instance (eks:cluster-name=prod)', 'instance', { 'eks:cluster-name': 'prod' }, true],
    ['an Auto Mode or Karpenter instance (eks:eks-cluster-name=prod)', 'instance', { 'eks:eks-cluster-name': 'prod' }, true],
    ['an instance tagged by hand (ebs.csi.aws.com/cluster-name=prod)', 'instance', { 'ebs.csi.aws.com/cluster-name': 'prod' }, true],
    ['a self-managed node (kubernetes.io/cluster/prod=owned)', 'instance', { 'kubernetes.io/cluster/prod': 'owned' }, true],
    ["another cluster's instance", 'instance', { 'eks:cluster-name': 'staging' }, false],
    ['an untagged instance', 'instance', {}, false],
  ] as const)('AttachVolume and DetachVolume on %s: %s', async (_case, type, tags, allowed) => {
    expect(await onResource('ec2:AttachVolume', type, tags)).toBe(allowed);
    expect(await onResource('ec2:DetachVolume', type, tags)).toBe(allowed);
  });

  it('describes volumes and instances in its region only', async () => {
    const describe = async (region: string) =>
      (
        await iam.decide({
          principal: session,
          action: 'ec2:DescribeVolumes',
          resource: '*',
          accountId: ACCOUNT,
          context: { 'aws:RequestedRegion': region },
          identityPolicies: policies(),
        })
      ).allowed;
    expect(await describe(REGION)).toBe(true);
    expect(await describe('us-east-1')).toBe(false);
  });

  it.each([
    ['a grant for EC2 on a named key', KEY, 'true', true],
    ['a grant for anything but an AWS resource', KEY, 'false', false],
    ['a key not named in kmsKeyArns', KEY.replace('1234abcd', '9999abcd'), 'true', false],
  ])('kms:CreateGrant: %s → %s', async (_case, key, forAws, allowed) => {
    const decision = await iam.decide({
      principal: session,
      action: 'kms:CreateGrant',
      resource: key,
      accountId: ACCOUNT,
      context: { 'kms:GrantIsForAWSResource': forAws, 'kms:ViaService': `ec2.${REGION}.amazonaws.com` },
      identityPolicies: policies(),
      // The default key policy: the account's IAM policies decide.
      resourcePolicy: {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` }, Action: 'kms:*', Resource: '*' }],
      },
    });
    expect(decision.allowed).toBe(allowed);
  });
});
