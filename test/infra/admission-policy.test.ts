/**
 * infra/k8s/node-status-policy.yaml: the optional admission policy that narrows the controller's
 * nodes/status writes to `status.volumesAttached`. Its CEL is evaluated here with a CEL library on
 * nodes before and after a write, as the API server would evaluate it.
 */
import { readFileSync } from 'node:fs';
import { V1NodeStatus } from '@kubernetes/client-node';
import { evaluate, parse } from '@marcbachmann/cel-js';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

interface Validation {
  expression: string;
  message: string;
}
interface Policy {
  kind: 'ValidatingAdmissionPolicy';
  metadata: { name: string };
  spec: {
    failurePolicy: string;
    matchConstraints: { resourceRules: { apiGroups: string[]; apiVersions: string[]; operations: string[]; resources: string[] }[] };
    matchConditions: { name: string; expression: string }[];
    validations: Validation[];
  };
}
interface Binding {
  kind: 'ValidatingAdmissionPolicyBinding';
  spec: { policyName: string; validationActions: string[] };
}

const read = (file: string) =>
  parseAllDocuments(readFileSync(new URL(`../../infra/k8s/${file}`, import.meta.url), 'utf8')).map((d) => d.toJS() as { kind: string });
const documents = read('node-status-policy.yaml');
const policy = documents.find((d) => d.kind === 'ValidatingAdmissionPolicy') as Policy;
const binding = documents.find((d) => d.kind === 'ValidatingAdmissionPolicyBinding') as Binding;
const rbacGroup = (read('rbac.yaml').find((d) => d.kind === 'ClusterRoleBinding') as unknown as { subjects: { name: string }[] })
  .subjects[0]!.name;

const ready = { type: 'Ready', status: 'True', reason: 'KubeletReady' };
const volume = { name: 'kubernetes.io/csi/ebs.csi.aws.com^vol-0aaaaaaaaaaaaaaaa', devicePath: '/dev/xvdaa' };
function node(status: Record<string, unknown> = {}, labels: Record<string, string> = { 'kubernetes.io/os': 'linux' }) {
  return {
    metadata: { name: 'node-1', labels, annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' } },
    spec: { providerID: 'aws:///us-east-1a/i-0123456789abcdef0' },
    status: { conditions: [ready], capacity: { cpu: '4' }, volumesInUse: [], ...status },
  };
}

/** The messages of the validations a write from `before` to `after` fails. */
const refusals = (before: object, after: object) =>
  policy.spec.validations.filter((v) => evaluate(v.expression, { object: after, oldObject: before }) !== true).map((v) => v.message);
const matches = (groups: string[]) =>
  policy.spec.matchConditions.every((c) => evaluate(c.expression, { request: { userInfo: { groups } } }));

describe('the node-status admission policy (infra/k8s/node-status-policy.yaml)', () => {
  it('is bound, denying, and fails closed', () => {
    expect(binding.spec).toEqual({ policyName: policy.metadata.name, validationActions: ['Deny'] });
    expect(policy.spec.failurePolicy).toBe('Fail');
  });

  it('matches only updates of nodes/status by the group RBAC binds the controller to', () => {
    expect(policy.spec.matchConstraints.resourceRules).toEqual([
      { apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['nodes/status'] },
    ]);
    expect(rbacGroup).toBe('ebs-attach-detach');
    expect(matches(['system:authenticated', rbacGroup])).toBe(true);
    expect(matches(['system:nodes', 'system:authenticated'])).toBe(false);
  });

  it('guards every NodeStatus field but volumesAttached, and every expression parses', () => {
    const fields = V1NodeStatus.getAttributeTypeMap().map((a) => a.baseName);
    const guarded = (field: string) => policy.spec.validations.some((v) => v.expression.includes(`object.status.${field} ==`));
    expect(fields.filter((f) => f !== 'volumesAttached' && !guarded(f))).toEqual([]);
    expect(guarded('volumesAttached')).toBe(false);
    for (const { expression } of [...policy.spec.validations, ...policy.spec.matchConditions])
      expect(() => parse(expression)).not.toThrow();
  });

  it.each<[string, object, object, RegExp[]]>([
    ['adding a volume to volumesAttached', node(), node({ volumesAttached: [volume] }), []],
    ['removing the last volume', node({ volumesAttached: [volume] }), node({ volumesAttached: [] }), []],
    ['a write that changes nothing', node(), node(), []],
    ['marking the node not Ready', node(), node({ conditions: [{ ...ready, status: 'False' }] }), [/status\.conditions/]],
    ['adding images the node never reported', node(), node({ images: [{ names: ['evil:latest'] }] }), [/status\.images/]],
    ['dropping volumesInUse (a kubelet field)', node(), node({ volumesInUse: undefined }), [/status\.volumesInUse/]],
    ['relabelling the node on the side', node(), node({}, { 'kubernetes.io/os': 'windows' }), [/metadata\.labels/]],
    [
      'changing capacity along with volumesAttached',
      node(),
      node({ volumesAttached: [volume], capacity: { cpu: '64' } }),
      [/status\.capacity/],
    ],
  ])('%s', (_name, before, after, refused) => {
    const json = (o: object) => JSON.parse(JSON.stringify(o)) as object;
    expect(refusals(json(before), json(after))).toEqual(refused.map((r) => expect.stringMatching(r) as string));
  });
});
