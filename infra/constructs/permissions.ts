/**
 * Least-privilege grants for the controller functions: each helper states exactly the calls one
 * adapter makes, on the narrowest resources the service supports. The two EC2 grants that need
 * wildcards are policies of their own, so each cdk-nag acknowledgement covers only its statement.
 */
import { Aws, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import type { RequiredTag, TagScheme } from '../../lambda/core/tag-scheme.js';

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
 * AttachVolume and DetachVolume authorize both the instance and the volume, and both resource types
 * take `aws:ResourceTag/<key>`: one Allow statement per required tag (core/tag-scheme.ts), so the
 * volume must carry one of the volume tags and the instance one of the instance tags, key and value
 * (StringEquals; StringLike only for the account-wide CSI scheme's "any value"), as AWS's
 * AmazonEBSCSIDriverEKSClusterScopedPolicy and AmazonEBSCSIDriverPolicyV2 do.
 */
function grantAttachDetach(scope: Construct, role: iam.IRole, scheme: TagScheme): void {
  const ec2Arn = (resource: string) => `arn:${Aws.PARTITION}:ec2:${Aws.REGION}:${Aws.ACCOUNT_ID}:${resource}/*`;
  const statements = (type: 'volume' | 'instance', tags: RequiredTag[]) =>
    tags.map(
      (tag, i) =>
        new iam.PolicyStatement({
          sid: `AttachDetach${type === 'volume' ? 'Volume' : 'Instance'}Tagged${i + 1}`,
          actions: ['ec2:AttachVolume', 'ec2:DetachVolume'],
          resources: [ec2Arn(type)],
          conditions: { [tag.value === '*' ? 'StringLike' : 'StringEquals']: { [`aws:ResourceTag/${tag.key}`]: tag.value } },
        }),
    );
  const policy = new iam.Policy(scope, 'AttachDetachPolicy', {
    roles: [role],
    statements: [...statements('volume', scheme.volume), ...statements('instance', scheme.instance)],
  });
  for (const type of ['instance', 'volume']) {
    Validations.of(policy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:${type}/*]`,
      reason:
        'EBS volumes and cluster instances come and go, so their ids cannot be listed; AttachVolume and DetachVolume ' +
        `are allowed only when the ${type} carries a tag naming the cluster (aws:ResourceTag condition, key and value).`,
    });
  }
}

/**
 * Attaching a volume encrypted with a customer-managed key makes EC2 create a grant on the key on
 * the caller's behalf: kms:CreateGrant on the named keys, for AWS resources only (as the EBS CSI
 * driver's documented KMS statement, narrowed to grants EC2 makes).
 */
function grantKmsForVolumes(role: iam.IRole, keyArns: readonly string[]): void {
  if (keyArns.length === 0) return;
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'EncryptedVolumeGrants',
      actions: ['kms:CreateGrant'],
      resources: [...keyArns],
      conditions: { Bool: { 'kms:GrantIsForAWSResource': 'true' } },
    }),
  );
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
export function grantController(
  scope: Construct,
  role: iam.IRole,
  access: { table: dynamodb.ITable; tags: TagScheme; kmsKeyArns: readonly string[] },
): void {
  grantVolumeStore(role, access.table);
  grantAttachDetach(scope, role, access.tags);
  grantKmsForVolumes(role, access.kmsKeyArns);
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
