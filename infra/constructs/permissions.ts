/**
 * Least-privilege grants for the controller functions: each helper states exactly the calls one
 * adapter makes, on the narrowest resources the service supports.
 */
import { Aws, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';

/**
 * The volume store's calls (adapters/dynamodb): item reads, the scan of a full pass, conditional
 * puts and updates. It never deletes (a removed volume becomes a tombstone that TTL expires) and
 * uses no transactions, so DeleteItem and ConditionCheckItem are not granted.
 */
const VOLUME_STORE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Scan',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
] as const;

/** On the table itself only: there are no indexes or streams to read. */
function grantVolumeStore(role: iam.IRole, table: dynamodb.ITable): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'VolumeStore',
      actions: [...VOLUME_STORE_ACTIONS],
      resources: [table.tableArn],
    }),
  );
}

/**
 * AttachVolume and DetachVolume authorize both the instance and the volume; both resource types
 * accept `aws:ResourceTag/<key>`, so each must carry the cluster's tag key (any value: `owned`
 * and `shared` are both used for `kubernetes.io/cluster/<name>`).
 */
function grantAttachDetach(role: iam.IRole, clusterTagKey: string): void {
  const ec2Arn = (resource: string) => `arn:${Aws.PARTITION}:ec2:${Aws.REGION}:${Aws.ACCOUNT_ID}:${resource}/*`;
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'AttachDetachClusterVolumes',
      actions: ['ec2:AttachVolume', 'ec2:DetachVolume'],
      resources: [ec2Arn('instance'), ec2Arn('volume')],
      conditions: { Null: { [`aws:ResourceTag/${clusterTagKey}`]: 'false' } },
    }),
  );
}

/** EC2 Describe* calls support no resource-level permissions: `*`, limited to the stack's region. */
function grantDescribe(role: iam.IRole): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'DescribeVolumesAndInstances',
      actions: ['ec2:DescribeVolumes', 'ec2:DescribeInstances'],
      resources: ['*'],
      conditions: { StringEquals: { 'aws:RequestedRegion': Aws.REGION } },
    }),
  );
}

/** Everything the controller's functions need, granted to their shared role. */
/**
 * The cluster's endpoint and CA come from the stack's settings, and the EKS token is a presigned
 * sts:GetCallerIdentity (which needs no permission), so no eks:* action is granted.
 */
export function grantController(role: iam.IRole, access: { table: dynamodb.ITable; clusterTagKey: string }): void {
  grantVolumeStore(role, access.table);
  grantAttachDetach(role, access.clusterTagKey);
  grantDescribe(role);
  acknowledgeWildcards(role);
}

/** cdk-nag AwsSolutions-IAM5: each wildcard that remains, and why it cannot be narrower. */
function acknowledgeWildcards(role: iam.IRole): void {
  const nag = Validations.of(role);
  nag.acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'Only actions without resource-level permissions use "*": ec2:DescribeVolumes and ec2:DescribeInstances ' +
      '(limited to this region by aws:RequestedRegion) and X-Ray PutTraceSegments/PutTelemetryRecords (active tracing).',
  });
  for (const type of ['instance', 'volume']) {
    nag.acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:${type}/*]`,
      reason:
        'EBS volumes and cluster instances come and go, so their ids cannot be listed; AttachVolume and DetachVolume ' +
        `are allowed only when the ${type} carries the cluster tag key (aws:ResourceTag condition).`,
    });
  }
}
