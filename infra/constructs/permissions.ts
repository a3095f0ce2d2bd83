/**
 * Least-privilege grants for the controller functions: each helper states exactly the calls one
 * adapter makes, on the narrowest resources the service supports. The two EC2 grants that need
 * wildcards are policies of their own, so each cdk-nag acknowledgement covers only its statement.
 */
import { Aws, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';

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
 * The shared EC2 budget (`EC2_BUDGET_TABLE_NAME`), a table of its own that clusters of one account
 * and region share: the rate budget reads a bucket and swaps it with a conditional update.
 * Named, not created here: another stack (or the first cluster's operator) owns it.
 */
export function grantBudgetTable(role: iam.IRole, tableName: string): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'SharedEc2Budget',
      actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      resources: [`arn:${Aws.PARTITION}:dynamodb:${Aws.REGION}:${Aws.ACCOUNT_ID}:table/${tableName}`],
    }),
  );
}

/**
 * AttachVolume and DetachVolume authorize both the instance and the volume; both resource types
 * accept `aws:ResourceTag/<key>`, so each must carry the cluster's tag key (any value: `owned`
 * and `shared` are both used for `kubernetes.io/cluster/<name>`).
 */
function grantAttachDetach(scope: Construct, role: iam.IRole, clusterTagKey: string): void {
  const ec2Arn = (resource: string) => `arn:${Aws.PARTITION}:ec2:${Aws.REGION}:${Aws.ACCOUNT_ID}:${resource}/*`;
  const policy = new iam.Policy(scope, 'AttachDetachPolicy', {
    roles: [role],
    statements: [
      new iam.PolicyStatement({
        sid: 'AttachDetachClusterVolumes',
        actions: ['ec2:AttachVolume', 'ec2:DetachVolume'],
        resources: [ec2Arn('instance'), ec2Arn('volume')],
        conditions: { Null: { [`aws:ResourceTag/${clusterTagKey}`]: 'false' } },
      }),
    ],
  });
  for (const type of ['instance', 'volume']) {
    Validations.of(policy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:${type}/*]`,
      reason:
        'EBS volumes and cluster instances come and go, so their ids cannot be listed; AttachVolume and DetachVolume ' +
        `are allowed only when the ${type} carries the cluster tag key (aws:ResourceTag condition).`,
    });
  }
}

/** EC2 Describe* calls support no resource-level permissions: `*`, limited to the stack's region. */
function grantDescribe(scope: Construct, role: iam.IRole): void {
  const policy = new iam.Policy(scope, 'DescribePolicy', {
    roles: [role],
    statements: [
      new iam.PolicyStatement({
        sid: 'DescribeVolumesAndInstances',
        actions: ['ec2:DescribeVolumes', 'ec2:DescribeInstances'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:RequestedRegion': Aws.REGION } },
      }),
    ],
  });
  Validations.of(policy).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'ec2:DescribeVolumes and ec2:DescribeInstances support no resource-level permissions; the statement is limited ' +
      'to this region by aws:RequestedRegion.',
  });
}

/**
 * Everything the controller's functions need, granted to their shared role. The cluster's
 * endpoint and CA come from the stack's settings, and the EKS token is a presigned
 * sts:GetCallerIdentity (which needs no permission), so no eks:* action is granted.
 */
export function grantController(scope: Construct, role: iam.IRole, access: { table: dynamodb.ITable; clusterTagKey: string }): void {
  grantVolumeStore(role, access.table);
  grantAttachDetach(scope, role, access.clusterTagKey);
  grantDescribe(scope, role);
}

/**
 * cdk-nag AwsSolutions-IAM5 on the role's default policy: active tracing adds X-Ray's
 * PutTraceSegments and PutTelemetryRecords, which take no resource ARNs. Call once the functions
 * (and so their tracing grants) exist.
 */
export function acknowledgeTracingWildcard(role: iam.Role): void {
  const defaultPolicy = role.node.tryFindChild('DefaultPolicy');
  if (!defaultPolicy) return;
  Validations.of(defaultPolicy).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'X-Ray PutTraceSegments and PutTelemetryRecords (active tracing) support no resource-level permissions.',
  });
}
