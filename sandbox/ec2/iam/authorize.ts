/**
 * IAM in front of the local EC2, as EC2 asks it: every request of a principal the model knows is
 * authorized against that principal's identity policies, resource by resource, with each
 * resource's tags (AttachVolume and DetachVolume authorize the volume and the instance). A refusal
 * is EC2's `UnauthorizedOperation` (403) with an encoded authorization message; a dry run answers
 * `DryRunOperation` only once authorized. Attaching a volume encrypted with a customer-managed key
 * also needs `kms:CreateGrant` on that key, which EC2 asks for on the caller's behalf.
 * Credentials the model does not know act as an administrator (the sandbox's own setup, an operator).
 */
import { ec2Errors } from '../protocol/errors.js';
import type { Params } from '../protocol/form.js';
import { awsManagedEbsKeyArn, regionOfZone } from '../state/kms.js';
import type { SandboxVolume, World } from '../state/model.js';
import type { IamDecision, IamEvaluator, NamedPolicy } from './evaluator.js';

export interface IamPrincipal {
  /** The session ARN requests are made as, e.g. arn:aws:sts::123456789012:assumed-role/Role/session. */
  arn: string;
  policies: readonly NamedPolicy[];
  /** The role's tags: its sessions' principal tags. */
  tags: Readonly<Record<string, string>>;
}

export interface IamModel {
  /** By access key id. */
  principals: ReadonlyMap<string, IamPrincipal>;
  evaluator: IamEvaluator;
  region: string;
}

interface Resource {
  arn: string;
  tags: ReadonlyMap<string, string>;
}

/** The access key a SigV4 request was signed with (header or presigned query). */
export function accessKeyOf(authorization: string | undefined, params: Params): string | undefined {
  const credential = /Credential=([^/,\s]+)\//.exec(authorization ?? '')?.[1] ?? params.get('X-Amz-Credential')?.split('/')[0];
  return credential === '' ? undefined : credential;
}

/** The resources EC2 authorizes for an action; undefined when one is unknown (the action answers NotFound). */
function resourcesOf(action: string, params: Params, world: World, region: string): Resource[] | undefined {
  const arn = (type: string, id: string) => `arn:aws:ec2:${region}:${world.config.ownerId}:${type}/${id}`;
  if (action !== 'AttachVolume' && action !== 'DetachVolume') return [{ arn: '*', tags: new Map() }];
  const volume = world.volumes.get(params.get('VolumeId') ?? '');
  const instanceId = params.get('InstanceId') ?? (volume ? [...volume.attachments.keys()][0] : undefined);
  const instance = instanceId === undefined ? undefined : world.instances.get(instanceId);
  if (!volume || !instance) return undefined;
  return [
    { arn: arn('instance', instance.instanceId), tags: instance.tags },
    { arn: arn('volume', volume.volumeId), tags: volume.tags },
  ];
}

function context(model: IamModel, principal: IamPrincipal, tags: ReadonlyMap<string, string>): Record<string, string> {
  const entries: [string, string][] = [
    ['aws:RequestedRegion', model.region],
    ['aws:PrincipalArn', principal.arn],
    ...Object.entries(principal.tags).map(([key, value]): [string, string] => [`aws:PrincipalTag/${key}`, value]),
    ...[...tags].flatMap(([key, value]): [string, string][] => [
      [`aws:ResourceTag/${key}`, value],
      [`ec2:ResourceTag/${key}`, value],
    ]),
  ];
  return Object.fromEntries(entries);
}

/** What `aws sts decode-authorization-message` shows, base64url-encoded (AWS encrypts it; we do not). */
function encoded(decision: IamDecision, principal: IamPrincipal, action: string, resource: string, ctx: Record<string, string>): string {
  const message = {
    allowed: false,
    explicitDeny: decision.explicitDeny,
    matchedStatements: { items: decision.matchedStatements },
    failures: { items: [] },
    context: {
      principal: { arn: principal.arn },
      action,
      resource,
      conditions: { items: Object.entries(ctx).map(([key, value]) => ({ key, values: { items: [{ value }] } })) },
    },
  };
  return Buffer.from(JSON.stringify(message)).toString('base64url');
}

/** Throws EC2's refusal unless the principal may do `action` on every resource it names. */
export async function authorize(
  model: IamModel,
  accessKey: string | undefined,
  action: string,
  params: Params,
  world: World,
): Promise<void> {
  const principal = accessKey === undefined ? undefined : model.principals.get(accessKey);
  if (principal === undefined) return;
  const resources = resourcesOf(action, params, world, model.region);
  if (resources === undefined) return;
  for (const resource of resources) {
    const ctx = context(model, principal, resource.tags);
    const decision = await model.evaluator.decide({
      principal: principal.arn,
      action: `ec2:${action}`,
      resource: resource.arn,
      accountId: world.config.ownerId,
      context: ctx,
      identityPolicies: principal.policies,
    });
    if (!decision.allowed)
      throw ec2Errors.unauthorized(
        principal.arn,
        `ec2:${action}`,
        resource.arn,
        encoded(decision, principal, `ec2:${action}`, resource.arn, ctx),
      );
  }
}

/** A key whose policy is KMS's default one: any key but the account's aws/ebs key (whose policy admits the account through EC2). */
const isCustomerKey = (volume: SandboxVolume, account: string): volume is SandboxVolume & { kmsKeyId: string } =>
  volume.kmsKeyId !== undefined && volume.kmsKeyId !== awsManagedEbsKeyArn(regionOfZone(volume.zone), account);

/**
 * AttachVolume of a volume under a customer-managed key: EC2 creates a grant on the key for the
 * caller, so the caller needs kms:CreateGrant on it (its key policy is KMS's default one, which
 * leaves the decision to IAM). The AWS-managed aws/ebs key's policy admits every caller of the account.
 */
export async function authorizeKeyUse(model: IamModel, accessKey: string | undefined, params: Params, world: World): Promise<void> {
  const principal = accessKey === undefined ? undefined : model.principals.get(accessKey);
  const volume = world.volumes.get(params.get('VolumeId') ?? '');
  const account = world.config.ownerId;
  if (principal === undefined || volume === undefined || !isCustomerKey(volume, account)) return;
  const decision = await model.evaluator.decide({
    principal: principal.arn,
    action: 'kms:CreateGrant',
    resource: volume.kmsKeyId,
    accountId: account,
    context: {
      'kms:GrantIsForAWSResource': 'true',
      'kms:ViaService': `ec2.${model.region}.amazonaws.com`,
      'kms:CallerAccount': account,
      'aws:PrincipalArn': principal.arn,
    },
    identityPolicies: principal.policies,
    resourcePolicy: {
      Version: '2012-10-17',
      Statement: [
        { Sid: 'DefaultKeyPolicy', Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${account}:root` }, Action: 'kms:*', Resource: '*' },
      ],
    },
  });
  if (!decision.allowed) throw ec2Errors.keyUnusable(volume.volumeId);
}
