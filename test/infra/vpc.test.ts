/**
 * `-c vpcId=… -c subnetIds=…`: the functions inside the cluster's VPC for a private API endpoint,
 * with the endpoints of the AWS APIs they call and nothing the rest of the stack does not need.
 */
import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { SYNTH_TIMEOUT_MS, type Synthesized, nagFindings, resourceId, synthesize } from './synth.js';

const VPC = {
  vpcId: 'vpc-0a1b2c3d4e5f60718',
  subnetIds: 'subnet-0a1b2c3d4e5f60718,subnet-0a1b2c3d4e5f60719',
  routeTableIds: 'rtb-0a1b2c3d4e5f60718,rtb-0a1b2c3d4e5f60719',
  clusterSecurityGroupId: 'sg-0c1c2c3c4c5c6c7c8',
};
const SUBNETS = ['subnet-0a1b2c3d4e5f60718', 'subnet-0a1b2c3d4e5f60719'];

let inVpc: Synthesized;
let withExisting: Synthesized;
let outside: Synthesized;
beforeAll(() => {
  inVpc = synthesize({ mode: 'attacher', ...VPC });
  withExisting = synthesize({
    vpcId: VPC.vpcId,
    subnetIds: VPC.subnetIds,
    ec2Endpoint: 'existing',
    dynamoDbEndpoint: 'existing',
  });
  outside = synthesize();
}, SYNTH_TIMEOUT_MS * 3);

const resources = (template: Template, type: string) =>
  Object.values(template.findResources(type)) as { Properties: Record<string, unknown> }[];
const functionSecurityGroup = (template: Template) => ({
  'Fn::GetAtt': [resourceId(template, 'AWS::EC2::SecurityGroup', 'VpcAccessFunctionSecurityGroup'), 'GroupId'],
});

describe('functions in the cluster VPC', () => {
  it('places every function in the given subnets with the functions security group', () => {
    const { template } = inVpc;
    for (const fn of resources(template, 'AWS::Lambda::Function')) {
      expect(fn.Properties.VpcConfig).toEqual({ SubnetIds: SUBNETS, SecurityGroupIds: [functionSecurityGroup(template)] });
    }
  });

  it('lets the functions out on HTTPS only', () => {
    inVpc.template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      VpcId: VPC.vpcId,
      SecurityGroupEgress: [Match.objectLike({ CidrIp: '0.0.0.0/0', IpProtocol: 'tcp', FromPort: 443, ToPort: 443 })],
    });
    expect(JSON.stringify(resources(inVpc.template, 'AWS::EC2::SecurityGroup'))).not.toContain('SecurityGroupIngress');
  });

  it('opens the cluster security group to the functions on 443, and nothing else on it', () => {
    const rules = resources(inVpc.template, 'AWS::EC2::SecurityGroupIngress').filter(
      (r) => r.Properties.GroupId === VPC.clusterSecurityGroupId,
    );
    expect(rules.map((r) => r.Properties)).toEqual([
      expect.objectContaining({
        IpProtocol: 'tcp',
        FromPort: 443,
        ToPort: 443,
        SourceSecurityGroupId: functionSecurityGroup(inVpc.template),
      }),
    ]);
  });

  it('creates an EC2 interface endpoint without private DNS, reachable from the functions only', () => {
    const { template } = inVpc;
    template.hasResourceProperties('AWS::EC2::VPCEndpoint', {
      VpcEndpointType: 'Interface',
      ServiceName: { 'Fn::Join': ['', ['com.amazonaws.', { Ref: 'AWS::Region' }, '.ec2']] },
      SubnetIds: SUBNETS,
      PrivateDnsEnabled: false,
    });
    const endpointGroup = resourceId(template, 'AWS::EC2::SecurityGroup', 'VpcAccessEc2EndpointSecurityGroup');
    template.hasResourceProperties('AWS::EC2::SecurityGroupIngress', {
      GroupId: { 'Fn::GetAtt': [endpointGroup, 'GroupId'] },
      SourceSecurityGroupId: functionSecurityGroup(template),
      FromPort: 443,
      ToPort: 443,
    });
  });

  it('creates a DynamoDB gateway endpoint on the given route tables', () => {
    inVpc.template.hasResourceProperties('AWS::EC2::VPCEndpoint', {
      VpcEndpointType: 'Gateway',
      VpcId: VPC.vpcId,
      ServiceName: { 'Fn::Join': ['', ['com.amazonaws.', { Ref: 'AWS::Region' }, '.dynamodb']] },
      RouteTableIds: ['rtb-0a1b2c3d4e5f60718', 'rtb-0a1b2c3d4e5f60719'],
    });
  });

  it('creates no endpoint the VPC already has, and no cluster rule without the cluster group', () => {
    withExisting.template.resourceCountIs('AWS::EC2::VPCEndpoint', 0);
    withExisting.template.resourceCountIs('AWS::EC2::SecurityGroupIngress', 0);
    withExisting.template.resourceCountIs('AWS::EC2::SecurityGroup', 1);
  });

  it('lets Lambda manage the network interfaces in those subnets only, before any function is created', () => {
    const { template } = inVpc;
    const arn = (resource: string) => ({
      'Fn::Join': [
        '',
        ['arn:', { Ref: 'AWS::Partition' }, ':ec2:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:${resource}`],
      ],
    });
    const policyId = resourceId(template, 'AWS::IAM::Policy', 'VpcAccessNetworkInterfacePolicy');
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: resourceId(template, 'AWS::IAM::Role', 'ControllerRole') }],
      PolicyDocument: {
        Statement: [
          Match.objectLike({
            Sid: 'CreateFunctionInterfaces',
            Action: 'ec2:CreateNetworkInterface',
            Resource: [
              arn('network-interface/*'),
              ...SUBNETS.map((id) => arn(`subnet/${id}`)),
              Match.objectLike({ 'Fn::Join': ['', Match.arrayWith([':security-group/', functionSecurityGroup(template)])] }),
            ],
          }),
          Match.objectLike({ Sid: 'ManageFunctionInterfaces', Resource: arn('network-interface/*') }),
          Match.objectLike({
            Sid: 'DescribeFunctionNetwork',
            Resource: '*',
            Condition: { StringEquals: { 'aws:RequestedRegion': { Ref: 'AWS::Region' } } },
          }),
        ],
      },
    });
    for (const [id, fn] of Object.entries(template.findResources('AWS::Lambda::Function'))) {
      expect(fn.DependsOn, id).toContain(policyId);
    }
    // No AWS managed policy (AWSLambdaVPCAccessExecutionRole would add logs:* on every group).
    expect(resources(template, 'AWS::IAM::Role').every((role) => role.Properties.ManagedPolicyArns === undefined)).toBe(true);
  });

  it('outputs the functions security group for rules the stack does not own', () => {
    inVpc.template.hasOutput('FunctionSecurityGroupId', { Value: functionSecurityGroup(inVpc.template) });
    expect(Object.keys(outside.template.findOutputs('FunctionSecurityGroupId'))).toEqual([]);
  });

  it('adds nothing of the kind without a VPC', () => {
    for (const type of ['AWS::EC2::SecurityGroup', 'AWS::EC2::VPCEndpoint', 'AWS::EC2::SecurityGroupIngress']) {
      outside.template.resourceCountIs(type, 0);
    }
    for (const fn of resources(outside.template, 'AWS::Lambda::Function')) expect(fn.Properties.VpcConfig).toBeUndefined();
  });

  it.each([
    ['with created endpoints', () => inVpc],
    ['with existing endpoints', () => withExisting],
  ])('is cdk-nag clean %s', (_case, synthesized) => {
    expect(nagFindings(synthesized())).toEqual([]);
    const annotations = Annotations.fromStack(synthesized().stack);
    expect([...annotations.findWarning('*', Match.anyValue()), ...annotations.findError('*', Match.anyValue())]).toEqual([]);
  });
});
