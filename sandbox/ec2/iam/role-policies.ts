/**
 * A role's identity policies as a synthesized template holds them (AWS::IAM::Policy and
 * AWS::IAM::ManagedPolicy resources attached to it, and its inline policies), resolved for one
 * account and region: exactly what IAM will evaluate for the role's sessions once deployed.
 */
import type { NamedPolicy, PolicyDocument } from './evaluator.js';
import { resolveIntrinsics, type DeployTarget } from './intrinsics.js';

interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
}

export interface Template {
  Resources: Record<string, TemplateResource>;
}

const attachedTo = (roles: unknown, roleId: string) =>
  Array.isArray(roles) && roles.some((role) => typeof role === 'object' && role !== null && (role as { Ref?: string }).Ref === roleId);

export function rolePolicies(template: Template, roleId: string, target: DeployTarget): NamedPolicy[] {
  const role = template.Resources[roleId];
  if (role?.Type !== 'AWS::IAM::Role') throw new Error(`${roleId} is not a role of this template`);
  const policies: NamedPolicy[] = [];
  for (const [id, resource] of Object.entries(template.Resources)) {
    const isPolicy = resource.Type === 'AWS::IAM::Policy' || resource.Type === 'AWS::IAM::ManagedPolicy';
    if (!isPolicy || !attachedTo(resource.Properties?.Roles, roleId)) continue;
    policies.push({ name: id, document: resolveIntrinsics(resource.Properties?.PolicyDocument, target) as PolicyDocument });
  }
  const inline = (role.Properties?.Policies ?? []) as { PolicyName: string; PolicyDocument: unknown }[];
  for (const policy of inline)
    policies.push({ name: policy.PolicyName, document: resolveIntrinsics(policy.PolicyDocument, target) as PolicyDocument });
  return policies;
}

/** The role's tags, which its sessions carry as principal tags (`aws:PrincipalTag/<key>`). */
export function roleTags(template: Template, roleId: string): Record<string, string> {
  const tags = (template.Resources[roleId]?.Properties?.Tags ?? []) as { Key: string; Value: string }[];
  return Object.fromEntries(tags.map((tag) => [tag.Key, tag.Value]));
}
