/**
 * infra/k8s/rbac.yaml stays in step with the adapter: every API call the adapter makes in a
 * run of all its operations is allowed by the ClusterRole, and every (group, resource, verb)
 * the ClusterRole grants was used by that run.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { attachSucceededEvent } from '../../lambda/core/events.js';
import { volumeAttachmentName } from '../../lambda/adapters/kubernetes/volume-attachment-name.js';
import type { LoggedRequest } from '../../sandbox/kube/index.js';
import { node, pod, seedBound, startHarness, uniqueName, volumeAttachment, type Harness } from './support.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

const manifest = parseAllDocuments(readFileSync(new URL('../../infra/k8s/rbac.yaml', import.meta.url), 'utf8')).map(
  (d) => d.toJS() as { kind?: string },
);
const role = manifest.find((d) => d.kind === 'ClusterRole') as unknown as { metadata: { name: string }; rules: Rule[] };
const binding = manifest.find((d) => d.kind === 'ClusterRoleBinding') as unknown as {
  roleRef: Record<string, string>;
  subjects: Record<string, string>[];
};

const permission = (group: string, resource: string, verb: string) => `${group || 'core'} ${resource} ${verb}`;
const granted = new Set(
  role.rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => permission(g, res, v))))),
);
const needed = (r: LoggedRequest) => permission(r.group, r.subresource ? `${r.resource}/${r.subresource}` : r.resource, r.verb);

let h: Harness;
let used: Set<string>;

/** Every operation of the Cluster port, down each path that needs its own permission. */
async function runEveryOperation(): Promise<void> {
  const { cluster, sandbox } = h;
  seedBound(sandbox, 'shop', 'data-db-0', 'pv-db', 'vol-0aaaaaaaaaaaaaaaa');
  const adopted = { volumeId: 'vol-0bbbbbbbbbbbbbbbb', nodeName: 'node-1', pvName: 'pv-other' };
  sandbox.seed([
    node('node-1', { volumesInUse: [uniqueName('vol-0aaaaaaaaaaaaaaaa')] }),
    pod('shop', 'db-0', 'node-1', [{ name: 'data', claim: 'data-db-0' }]),
    volumeAttachment(volumeAttachmentName(adopted.volumeId, adopted.nodeName), adopted.nodeName, adopted.pvName),
  ]);
  sandbox.resetRequests();
  await cluster.readAll();
  await cluster.readPod('shop', 'db-0');
  await cluster.readPodsOnNode('node-1');
  await cluster.readNode('node-1');
  await cluster.volumesInUse('node-1');
  await cluster.setVolumesAttached('node-1', [{ name: uniqueName('vol-0aaaaaaaaaaaaaaaa'), devicePath: '/dev/xvdaa' }]);
  const ref = { volumeId: 'vol-0aaaaaaaaaaaaaaaa', nodeName: 'node-1', pvName: 'pv-db' };
  await cluster.upsertVolumeAttachment(ref, { attached: true, devicePath: '/dev/xvdaa' });
  await cluster.upsertVolumeAttachment(adopted, { attached: true, devicePath: '/dev/xvdab' });
  await cluster.deleteVolumeAttachment(ref);
  const podRef = { namespace: 'shop', name: 'db-0', uid: 'uid-shop-db-0' };
  await cluster.recordEvent(podRef, attachSucceededEvent('pv-db'));
  await cluster.recordEvent(podRef, attachSucceededEvent('pv-db'));
}

beforeAll(async () => {
  h = await startHarness();
  await runEveryOperation();
  used = new Set(
    h.sandbox
      .requests()
      .filter((r) => r.resource !== '' && !r.injected)
      .map(needed),
  );
});
afterAll(() => h.stop());

describe('RBAC manifest (infra/k8s/rbac.yaml)', () => {
  it('allows every call the adapter made', () => {
    expect([...used].filter((p) => !granted.has(p))).toEqual([]);
  });

  it('grants nothing the adapter did not use', () => {
    expect([...granted].filter((p) => !used.has(p))).toEqual([]);
  });

  it('binds the role to the group the Lambda role is mapped to by its access entry', () => {
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name });
    expect(binding.subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'ebs-attach-detach' }]);
  });

  it('grants no watch and no wildcard', () => {
    expect([...granted].filter((p) => p.endsWith(' watch') || p.includes('*'))).toEqual([]);
  });
});
