/**
 * The functions inside the cluster's VPC, for clusters whose API endpoint is private: their
 * security group, the way to the API server, the VPC endpoints of the two AWS APIs the functions
 * call themselves (EC2 and DynamoDB), and the network-interface permissions Lambda needs.
 *
 * Nothing else needs a way out: logs and EMF metrics leave through Lambda's own log capture, X-Ray
 * segments are recorded by Lambda (the functions carry no X-Ray SDK), SQS is polled and async
 * dead-letter queues are written by the Lambda service, and the EKS token is a presigned URL
 * signed locally with the role's credentials from the environment (no STS call).
 */
import { Annotations, Aws, Fn, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { VpcSettings } from '../settings.js';

const HTTPS = ec2.Port.tcp(443);

/** Where a function's network interfaces go (spread into the Lambda function's props). */
export interface FunctionNetwork {
  vpc: ec2.IVpc;
  vpcSubnets: ec2.SubnetSelection;
  securityGroups: ec2.ISecurityGroup[];
}

export interface VpcAccessProps {
  settings: VpcSettings;
  /** The functions' shared role: Lambda creates their network interfaces with it. */
  role: iam.IRole;
}

export class VpcAccess extends Construct {
  readonly network: FunctionNetwork;
  readonly securityGroup: ec2.SecurityGroup;
  /** Lambda checks these permissions when it creates a function: functions must depend on it. */
  readonly networkInterfacePolicy: iam.Policy;
  /** What the functions need to reach the endpoints the stack created (their URLs; empty when none needs one). */
  readonly environment: Record<string, string> = {};

  constructor(scope: Construct, id: string, props: VpcAccessProps) {
    super(scope, id);
    const { settings } = props;
    // Imported by id, nothing looked up: `cdk synth` stays offline. The zones are only a placeholder for the import.
    const vpc = ec2.Vpc.fromVpcAttributes(this, 'Vpc', { vpcId: settings.vpcId, availabilityZones: Fn.getAzs() });
    Annotations.of(vpc).acknowledgeWarning(
      '@aws-cdk/aws-ec2:vpcAttributeIsListTokenavailabilityZones',
      'Every construct here is given its subnets explicitly; none selects subnets by zone.',
    );
    const subnets = settings.subnetIds.map((subnetId) => {
      const subnet = ec2.Subnet.fromSubnetId(this, subnetId, subnetId);
      Annotations.of(subnet).acknowledgeWarning(
        '@aws-cdk/aws-ec2:noSubnetRouteTableId',
        "The DynamoDB gateway endpoint takes the route tables from settings; nothing reads a subnet's route table.",
      );
      return subnet;
    });
    this.securityGroup = new ec2.SecurityGroup(this, 'FunctionSecurityGroup', {
      vpc,
      description: 'EBS attach/detach controller functions: HTTPS out only',
      allowAllOutbound: false,
    });
    // HTTPS to anywhere the subnets route: the API server, the EC2 endpoint, and DynamoDB through its
    // gateway endpoint (public addresses of a prefix list whose id cannot be resolved offline).
    this.securityGroup.addEgressRule(ec2.Peer.anyIpv4(), HTTPS, 'HTTPS: EKS API, EC2 endpoint, DynamoDB gateway endpoint');
    this.network = { vpc, vpcSubnets: { subnets }, securityGroups: [this.securityGroup] };

    if (settings.clusterSecurityGroupId) {
      const clusterSecurityGroup = ec2.SecurityGroup.fromSecurityGroupId(this, 'ClusterSecurityGroup', settings.clusterSecurityGroupId);
      clusterSecurityGroup.addIngressRule(this.securityGroup, HTTPS, 'Kubernetes API from the EBS attach/detach controller');
    }
    if (settings.ec2Endpoint === 'create') {
      // No private DNS: with it, every EC2 client of the VPC (VPC CNI, the EBS CSI node plugin,
      // Karpenter, the autoscaler) would resolve EC2 to an endpoint only our functions may reach.
      const endpoint = new ec2.InterfaceVpcEndpoint(this, 'Ec2Endpoint', {
        vpc,
        service: ec2.InterfaceVpcEndpointAwsService.EC2,
        subnets: { subnets },
        privateDnsEnabled: false,
        open: false,
      });
      endpoint.connections.allowFrom(this.securityGroup, HTTPS, 'EC2 API from the EBS attach/detach controller');
      // The first DNS entry is the endpoint's regional name, "hostedZoneId:dnsName".
      const dnsName = Fn.select(1, Fn.split(':', Fn.select(0, endpoint.vpcEndpointDnsEntries)));
      this.environment = { AWS_ENDPOINT_URL_EC2: `https://${dnsName}` };
    }
    if (settings.dynamoDbEndpoint === 'create') {
      new ec2.CfnVPCEndpoint(this, 'DynamoDbEndpoint', {
        vpcId: settings.vpcId,
        vpcEndpointType: 'Gateway',
        serviceName: `com.amazonaws.${Aws.REGION}.dynamodb`,
        routeTableIds: settings.routeTableIds,
      });
    }
    this.networkInterfacePolicy = networkInterfacePolicy(this, props.role, settings.subnetIds, this.securityGroup);
  }
}

/**
 * What Lambda does with the role to place a function in a VPC (the AWSLambdaVPCAccessExecutionRole
 * actions without its `logs:*` on every group): create interfaces in the given subnets with the
 * functions' group, delete and re-address them, and describe (which takes no resource ARNs).
 */
function networkInterfacePolicy(scope: Construct, role: iam.IRole, subnetIds: string[], group: ec2.ISecurityGroup): iam.Policy {
  const arn = (resource: string) => `arn:${Aws.PARTITION}:ec2:${Aws.REGION}:${Aws.ACCOUNT_ID}:${resource}`;
  const policy = new iam.Policy(scope, 'NetworkInterfacePolicy', {
    roles: [role],
    statements: [
      new iam.PolicyStatement({
        sid: 'CreateFunctionInterfaces',
        actions: ['ec2:CreateNetworkInterface'],
        resources: [
          arn('network-interface/*'),
          ...subnetIds.map((id) => arn(`subnet/${id}`)),
          arn(`security-group/${group.securityGroupId}`),
        ],
      }),
      new iam.PolicyStatement({
        sid: 'ManageFunctionInterfaces',
        actions: ['ec2:DeleteNetworkInterface', 'ec2:AssignPrivateIpAddresses', 'ec2:UnassignPrivateIpAddresses'],
        resources: [arn('network-interface/*')],
      }),
      new iam.PolicyStatement({
        sid: 'DescribeFunctionNetwork',
        actions: ['ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:RequestedRegion': Aws.REGION } },
      }),
    ],
  });
  Validations.of(policy).acknowledge(
    {
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:network-interface/*]',
      reason: "Lambda creates and replaces the functions' network interfaces itself, so their ids are not known in advance.",
    },
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'ec2:DescribeNetworkInterfaces and ec2:DescribeSubnets support no resource-level permissions; limited to this region.',
    },
  );
  return policy;
}
