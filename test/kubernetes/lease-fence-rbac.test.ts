/**
 * infra/k8s/rbac-lease-fence.yaml stays in step with the lease fence: every call a fence makes
 * (create, renew, re-read, take after the sidecar led) is allowed by the Role, in its namespace and
 * for its name, and every verb the Role grants is used.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { KubernetesLeaseLock } from '../../lambda/adapters/kubernetes/lease-lock.js';
import { LeaseFence } from '../../lambda/reconcile/attacher/fence.js';
import type { LoggedRequest } from '../../sandbox/kube/index.js';
import { SIDECAR_LEASE, SidecarElector } from '../../sandbox/lease-election.js';
import { startHarness, type Harness } from './support.js';
import { MemoryHandover } from '../support/memory-handover.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
  verbs: string[];
}

const manifest = parseAllDocuments(readFileSync(new URL('../../infra/k8s/rbac-lease-fence.yaml', import.meta.url), 'utf8')).map(
  (d) => d.toJS() as { kind?: string; metadata: { namespace?: string }; rules?: Rule[] },
);
const role = manifest.find((d) => d.kind === 'Role')!;

const allows = (r: LoggedRequest) =>
  r.namespace === role.metadata.namespace &&
  (role.rules ?? []).some(
    (rule) =>
      rule.apiGroups.includes(r.group) &&
      rule.resources.includes(r.resource) &&
      rule.verbs.includes(r.verb) &&
      (rule.resourceNames === undefined || rule.resourceNames.includes(r.name ?? '')),
  );

let h: Harness;
let requests: LoggedRequest[];

beforeAll(async () => {
  h = await startHarness();
  let now = 0;
  const lock = new KubernetesLeaseLock(h.clients.coordination, SIDECAR_LEASE);
  const fence = new LeaseFence({
    lock,
    store: new MemoryHandover(),
    identity: 'ebs-attach-detach/prod',
    durationSeconds: 180,
    rereadMs: 5_000,
    whenAbsent: 'create',
    now: () => now,
  });
  const sidecar = new SidecarElector(new KubernetesLeaseLock(h.clients.coordination, SIDECAR_LEASE), 'ebs-csi-controller-0', () => now);
  h.sandbox.resetRequests();
  await fence.acquireOrRenew(); // create
  await fence.acquireOrRenew(); // renew
  now += 200_000;
  await sidecar.tick(); // the sidecar takes our lapsed record (a fresh observer: after its own 180 s)
  now += 181_000;
  await sidecar.tick();
  await fence.holds(); // re-read: the sidecar leads now
  now += 16_000;
  await fence.acquireOrRenew(); // take it back once the sidecar stopped
  requests = h.sandbox.requests().filter((r) => r.resource !== '');
});
afterAll(() => h.stop());

describe('RBAC manifest (infra/k8s/rbac-lease-fence.yaml)', () => {
  it('allows every call the fence made', () => {
    expect(requests.filter((r) => !allows(r)).map((r) => `${r.verb} ${r.path}`)).toEqual([]);
  });

  it('grants no verb the fence does not use', () => {
    const used = new Set(requests.map((r) => r.verb));
    expect((role.rules ?? []).flatMap((rule) => rule.verbs).filter((v) => !used.has(v))).toEqual([]);
  });

  it('the run went down every path: created, renewed, lost to the sidecar and taken back', () => {
    expect(requests.map((r) => `${r.verb} ${r.status}`)).toEqual([
      'get 404',
      'create 201',
      'get 200',
      'update 200', // we renew
      'get 200', // the sidecar's first sight of our record
      'get 200',
      'update 200', // the sidecar takes it, 180 s later
      'get 200', // our re-read before an EC2 call: not ours
      'get 200',
      'update 200', // we take it back once the sidecar's record lapsed
    ]);
  });
});
