/**
 * The RBAC manifests under infra/k8s/ stay in step with the calls each mode makes: every call is
 * allowed, and every grant is used. Controller mode (rbac.yaml): the calls are recorded from a run
 * of every adapter operation against the local API server. Attacher mode (rbac-attacher.yaml) and
 * the optional taint and lease-fence manifests: the calls are declared in rbac-calls.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachSucceededEvent } from '../../lambda/core/events.js';
import { volumeAttachmentName } from '../../lambda/adapters/kubernetes/volume-attachment-name.js';
import { ADDON_NAMESPACE, ATTACHER_MODE_CALLS, LEASE_FENCE_CALLS, SIDECAR_LEASE, TAINT_CALLS } from './rbac-calls.js';
import { type ApiCall, bindingProblems, deniedCalls, loadManifest, unusedGrants } from './rbac-support.js';
import { node, pod, seedBound, startHarness, uniqueName, volumeAttachment, type Harness } from './support.js';
import { controllerWatch } from '../../lambda/reconcile/controller/watch.js';

const controllerManifest = loadManifest('rbac.yaml');
const attacherManifest = loadManifest('rbac-attacher.yaml');

let h: Harness;
let used: ApiCall[];

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
  await cluster.liveVolumes('node-1');
  await cluster.setVolumesAttached('node-1', [{ name: uniqueName('vol-0aaaaaaaaaaaaaaaa'), devicePath: '/dev/xvdaa' }]);
  const ref = { volumeId: 'vol-0aaaaaaaaaaaaaaaa', nodeName: 'node-1', pvName: 'pv-db' };
  await cluster.upsertVolumeAttachment(ref, { attached: true, devicePath: '/dev/xvdaa' });
  await cluster.upsertVolumeAttachment(adopted, { attached: true, devicePath: '/dev/xvdab' });
  await cluster.deleteVolumeAttachment(ref);
  const podRef = { namespace: 'shop', name: 'db-0', uid: 'uid-shop-db-0' };
  await cluster.recordEvent(podRef, attachSucceededEvent('pv-db'));
  await cluster.recordEvent(podRef, attachSucceededEvent('pv-db'));
  // The watcher: controller mode lists and watches pods and nodes.
  for (const kind of controllerWatch.kinds) {
    const start = await cluster.listToWatch(kind);
    const opened = await new Promise<{ stop(): void }>((resolve) => {
      const stream = cluster.watch(kind, start.resourceVersion, () => undefined, { timeoutSeconds: 1 });
      void stream.then(resolve);
    });
    opened.stop();
  }
}

beforeAll(async () => {
  h = await startHarness();
  await runEveryOperation();
  used = h.sandbox.requests().filter((r) => r.resource !== '' && !r.injected);
});
afterAll(() => h.stop());

const grantsOf = (manifest: typeof controllerManifest) => unusedGrants(manifest, []);
const forbidden = (calls: ApiCall[]) => calls.filter((call) => deniedCalls(attacherManifest, [call]).length === 0);

describe('controller mode (infra/k8s/rbac.yaml), against a recorded run of every adapter operation', () => {
  it('allows every call the adapter made', () => {
    expect(deniedCalls(controllerManifest, used)).toEqual([]);
  });

  it('grants nothing the adapter did not use', () => {
    expect(unusedGrants(controllerManifest, used)).toEqual([]);
  });

  it('grants watch only where the watcher holds one (pods and nodes), and no wildcard', () => {
    expect(grantsOf(controllerManifest).filter((grant) => / watch /.test(grant) || grant.includes('*'))).toEqual([
      'core nodes watch (ebs-attach-detach)',
      'core pods watch (ebs-attach-detach)',
    ]);
  });
});

describe('attacher mode (infra/k8s/rbac-attacher.yaml)', () => {
  it('grants watch only where the watcher holds one: the VolumeAttachments, and the PVs, CSINodes and nodes it caches', () => {
    expect(grantsOf(attacherManifest).filter((grant) => / watch /.test(grant))).toEqual([
      'storage.k8s.io volumeattachments watch (ebs-attach-detach-attacher)',
      'storage.k8s.io csinodes watch (ebs-attach-detach-attacher)',
      'core persistentvolumes watch (ebs-attach-detach-attacher)',
      'core nodes watch (ebs-attach-detach-attacher)',
    ]);
  });
});

describe.each([
  ['attacher mode (rbac-attacher.yaml)', attacherManifest, ATTACHER_MODE_CALLS],
  ['out-of-service taint (rbac-taint.yaml)', loadManifest('rbac-taint.yaml'), TAINT_CALLS],
  ['lease fence (rbac-lease-fence.yaml)', loadManifest('rbac-lease-fence.yaml'), LEASE_FENCE_CALLS],
])('%s, against its declared calls', (_name, manifest, calls) => {
  it('allows every call', () => {
    expect(deniedCalls(manifest, calls)).toEqual([]);
  });

  it('grants nothing else', () => {
    expect(unusedGrants(manifest, calls)).toEqual([]);
  });

  it('grants no wildcard', () => {
    expect(grantsOf(manifest).filter((grant) => grant.includes('*'))).toEqual([]);
  });
});

describe('every manifest', () => {
  it.each(['rbac.yaml', 'rbac-attacher.yaml', 'rbac-taint.yaml', 'rbac-lease-fence.yaml'])(
    '%s binds its roles to the group the Lambda role is mapped to by its access entry',
    (file) => {
      const manifest = loadManifest(file);
      expect(manifest.bindings).toHaveLength(manifest.roles.length);
      expect(bindingProblems(manifest)).toEqual([]);
    },
  );
});

describe('what attacher mode must not be able to do', () => {
  it("never creates or deletes VolumeAttachments, never writes node status (kcm's), never taints or fences without the extras", () => {
    const calls: ApiCall[] = [
      { group: 'storage.k8s.io', resource: 'volumeattachments', verb: 'create' },
      { group: 'storage.k8s.io', resource: 'volumeattachments', verb: 'delete', name: 'csi-0123' },
      { group: '', resource: 'nodes', subresource: 'status', verb: 'patch', name: 'node-1' },
      { group: '', resource: 'nodes', verb: 'patch', name: 'node-1' },
      { group: 'coordination.k8s.io', resource: 'leases', verb: 'update', namespace: ADDON_NAMESPACE, name: SIDECAR_LEASE },
    ];
    expect(forbidden(calls)).toEqual([]);
  });

  it('the fence can renew only the sidecar Lease, in the add-on namespace', () => {
    const fence = loadManifest('rbac-lease-fence.yaml');
    const lease = { group: 'coordination.k8s.io', resource: 'leases', verb: 'update' };
    expect(deniedCalls(fence, [{ ...lease, namespace: ADDON_NAMESPACE, name: 'kube-controller-manager' }])).toHaveLength(1);
    expect(deniedCalls(fence, [{ ...lease, namespace: 'default', name: SIDECAR_LEASE }])).toHaveLength(1);
    expect(deniedCalls(fence, [{ ...lease, verb: 'delete', namespace: ADDON_NAMESPACE, name: SIDECAR_LEASE }])).toHaveLength(1);
  });
});
