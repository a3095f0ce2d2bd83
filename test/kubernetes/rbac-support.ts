/**
 * RBAC as the API server evaluates it, for the manifests under infra/k8s/: a call is allowed when
 * one rule of a role bound to our group matches its group, resource (with subresource), verb,
 * name (when the rule lists resourceNames) and namespace (for a namespaced Role). Calls come from
 * the local API server's request log or from a declared list of the same shape.
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { LoggedRequest } from '../../sandbox/kube/index.js';

/** What RBAC looks at in a request. */
export type ApiCall = Pick<LoggedRequest, 'group' | 'resource' | 'subresource' | 'verb' | 'namespace' | 'name'>;

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

interface Role {
  kind: 'ClusterRole' | 'Role';
  metadata: { name: string; namespace?: string };
  rules: Rule[];
}

interface Binding {
  kind: 'ClusterRoleBinding' | 'RoleBinding';
  metadata: { name: string; namespace?: string };
  roleRef: Record<string, string>;
  subjects: Record<string, string>[];
}

export interface Manifest {
  file: string;
  roles: Role[];
  bindings: Binding[];
}

export function loadManifest(file: string): Manifest {
  const docs = parseAllDocuments(readFileSync(new URL(`../../infra/k8s/${file}`, import.meta.url), 'utf8')).map(
    (d) => d.toJS() as { kind?: string },
  );
  return {
    file,
    roles: docs.filter((d) => d.kind === 'ClusterRole' || d.kind === 'Role') as Role[],
    bindings: docs.filter((d) => d.kind === 'ClusterRoleBinding' || d.kind === 'RoleBinding') as Binding[],
  };
}

const resourceOf = (call: ApiCall) => (call.subresource ? `${call.resource}/${call.subresource}` : call.resource);

/** `group resource verb [name] @namespace`, the way both calls and grants are listed in failures. */
export const describeCall = (call: ApiCall) =>
  [call.group || 'core', resourceOf(call), call.verb, call.name && `[${call.name}]`, call.namespace && `@${call.namespace}`]
    .filter(Boolean)
    .join(' ');

function matches(role: Role, rule: Rule, call: ApiCall): boolean {
  if (role.kind === 'Role' && call.namespace !== role.metadata.namespace) return false;
  if (!rule.apiGroups.includes(call.group) || !rule.resources.includes(resourceOf(call)) || !rule.verbs.includes(call.verb)) return false;
  // A rule with names never matches a call without one (create, list, watch of a collection).
  return !rule.resourceNames?.length || (call.name !== undefined && rule.resourceNames.includes(call.name));
}

/** The calls no rule of the manifest allows. */
export function deniedCalls(manifest: Manifest, calls: readonly ApiCall[]): string[] {
  return calls.filter((call) => !manifest.roles.some((role) => role.rules.some((rule) => matches(role, rule, call)))).map(describeCall);
}

/** Every (group, resource, verb, name) a rule grants that none of the calls used. */
export function unusedGrants(manifest: Manifest, calls: readonly ApiCall[]): string[] {
  return manifest.roles.flatMap((role) =>
    role.rules.flatMap((rule) =>
      rule.apiGroups.flatMap((group) =>
        rule.resources.flatMap((resource) =>
          rule.verbs.flatMap((verb) => {
            const used = calls.some((call) => matches(role, { ...rule, apiGroups: [group], resources: [resource], verbs: [verb] }, call));
            const names = rule.resourceNames?.length ? ` [${rule.resourceNames.join(',')}]` : '';
            return used ? [] : [`${group || 'core'} ${resource} ${verb}${names} (${role.metadata.name})`];
          }),
        ),
      ),
    ),
  );
}

/** Every binding points at a role of the same file and grants it to the group the access entry maps our IAM role to. */
export function bindingProblems(manifest: Manifest): string[] {
  const roleKind = { ClusterRoleBinding: 'ClusterRole', RoleBinding: 'Role' } as const;
  return manifest.bindings.flatMap((binding) => {
    const role = manifest.roles.find((r) => r.metadata.name === binding.roleRef.name && r.kind === roleKind[binding.kind]);
    const problems: string[] = [];
    if (!role || binding.roleRef.apiGroup !== 'rbac.authorization.k8s.io')
      problems.push(`${binding.metadata.name}: roleRef not in ${manifest.file}`);
    if (role && role.metadata.namespace !== binding.metadata.namespace)
      problems.push(`${binding.metadata.name}: namespace differs from its role`);
    const subjects = JSON.stringify(binding.subjects);
    if (subjects !== JSON.stringify([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'ebs-attach-detach' }])) {
      problems.push(`${binding.metadata.name}: subjects ${subjects}`);
    }
    return problems;
  });
}
