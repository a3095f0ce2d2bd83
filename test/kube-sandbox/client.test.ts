/**
 * The sandbox through the real @kubernetes/client-node, as the Cluster adapter uses it:
 * TLS and the token from the kubeconfig, lists over many pages, conflicts, patches on
 * nodes/status, finalizers, field selectors.
 */
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment --
   tests read stored objects and response bodies as loosely typed JSON, the way the wire sends them */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.js';
import { clientsFor, codeOf, merge, node, pod, raw, strategic, volumeAttachment } from './support.js';

let sandbox: KubeSandbox;
let core: ReturnType<typeof clientsFor>['core'];
let storage: ReturnType<typeof clientsFor>['storage'];

beforeAll(async () => {
  sandbox = await startKubeSandbox();
  ({ core, storage } = clientsFor(sandbox));
});
afterAll(() => sandbox.stop());

async function listAllPods(limit: number, between?: (page: number) => Promise<void>) {
  const names: string[] = [];
  let token: string | undefined;
  let page = 0;
  do {
    const list = await core.listPodForAllNamespaces({ limit, ...(token ? { _continue: token } : {}) });
    names.push(...list.items.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`));
    token = list.metadata?._continue;
    await between?.(++page);
  } while (token);
  return names;
}

describe('pagination', () => {
  beforeAll(() => {
    sandbox.seed(Array.from({ length: 57 }, (_, i) => pod(i % 2 ? 'team-a' : 'team-b', `web-${String(i).padStart(2, '0')}`, 'n1')));
  });

  it('returns every pod exactly once over pages of 5, in namespace/name order', async () => {
    const names = await listAllPods(5);
    expect(names).toHaveLength(57);
    expect(new Set(names).size).toBe(57);
    expect(names).toEqual([...names].sort());
  });

  it('serves the snapshot the list started from, whatever is written between pages', async () => {
    const names = await listAllPods(10, async (page) => {
      if (page !== 2) return;
      await core.createNamespacedPod({ namespace: 'team-a', body: pod('team-a', 'aaa-late') });
      await core.deleteNamespacedPod({ namespace: 'team-b', name: 'web-56', gracePeriodSeconds: 0 });
    });
    expect(names).toHaveLength(57);
    expect(names).toContain('team-b/web-56');
    expect(names).not.toContain('team-a/aaa-late');
    await core.deleteNamespacedPod({ namespace: 'team-a', name: 'aaa-late', gracePeriodSeconds: 0 });
    sandbox.seed([pod('team-b', 'web-56', 'n1')]);
  });

  it('reports remainingItemCount and the snapshot resourceVersion', async () => {
    const first = await core.listNamespacedPod({ namespace: 'team-a', limit: 10 });
    expect(first.items).toHaveLength(10);
    expect(first.metadata?.remainingItemCount).toBe(18);
    const second = await core.listNamespacedPod({ namespace: 'team-a', limit: 10, _continue: first.metadata?._continue });
    expect(second.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
  });

  it('answers 410 Expired to a continue token older than the last compaction', async () => {
    const first = await core.listPodForAllNamespaces({ limit: 5 });
    sandbox.seed([node('n-compaction')]);
    sandbox.compact();
    expect(await codeOf(core.listPodForAllNamespaces({ limit: 5, _continue: first.metadata?._continue }))).toBe(410);
  });

  it('hands out, with the 410, a token that goes on with the rest at the current revision', async () => {
    const first = await core.listPodForAllNamespaces({ limit: 50 });
    sandbox.seed([node('n-compaction-2')]);
    sandbox.compact();
    const expired = await raw(sandbox, 'GET', `/api/v1/pods?limit=50&continue=${first.metadata?._continue}`);
    expect(expired.body).toMatchObject({ code: 410, reason: 'Expired', metadata: { continue: expect.any(String) } });
    const rest = await core.listPodForAllNamespaces({ limit: 50, _continue: expired.body.metadata.continue });
    expect([first.items.length + rest.items.length, rest.metadata?._continue]).toEqual([57, undefined]);
  });

  it('selects pods by spec.nodeName across pages', async () => {
    sandbox.seed([pod('team-c', 'on-n2-a', 'n2'), pod('team-c', 'on-n2-b', 'n2'), pod('team-c', 'unscheduled')]);
    const first = await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=n2', limit: 1 });
    const second = await core.listPodForAllNamespaces({
      fieldSelector: 'spec.nodeName=n2',
      limit: 1,
      _continue: first.metadata?._continue,
    });
    expect([...first.items, ...second.items].map((p) => p.metadata?.name)).toEqual(['on-n2-a', 'on-n2-b']);
    expect(second.metadata?._continue).toBeUndefined();
  });
});

describe('optimistic concurrency', () => {
  it('rejects a PUT carrying a stale resourceVersion with 409 Conflict', async () => {
    sandbox.seed([node('n-put')]);
    const read = await core.readNode({ name: 'n-put' });
    await core.replaceNode({ name: 'n-put', body: { ...read, metadata: { ...read.metadata, labels: { a: '1' } } } });
    expect(await codeOf(core.replaceNode({ name: 'n-put', body: { ...read, metadata: { ...read.metadata, labels: { a: '2' } } } }))).toBe(
      409,
    );
  });

  it('rejects a patch whose body names a stale resourceVersion with 409', async () => {
    sandbox.seed([node('n-patch')]);
    const read = await core.readNode({ name: 'n-patch' });
    sandbox.kubelet.setVolumesInUse('n-patch', ['kubernetes.io/csi/ebs.csi.aws.com^vol-1']);
    const body = { metadata: { resourceVersion: read.metadata?.resourceVersion }, status: { volumesAttached: [] } };
    expect(await codeOf(core.patchNodeStatus({ name: 'n-patch', body }, merge))).toBe(409);
  });

  it('answers 409 AlreadyExists to a second create of the same name and 404 to a missing one', async () => {
    const body = volumeAttachment('csi-twice', 'n1');
    await storage.createVolumeAttachment({ body });
    expect(await codeOf(storage.createVolumeAttachment({ body }))).toBe(409);
    expect(await codeOf(storage.readVolumeAttachment({ name: 'csi-absent' }))).toBe(404);
  });

  it('does not bump resourceVersion for a patch that changes nothing', async () => {
    sandbox.seed([node('n-noop', { volumesAttached: [{ name: 'v', devicePath: '/dev/xvdaa' }] })]);
    const before = await core.readNode({ name: 'n-noop' });
    const after = await core.patchNodeStatus(
      { name: 'n-noop', body: { status: { volumesAttached: [{ name: 'v', devicePath: '/dev/xvdaa' }] } } },
      strategic,
    );
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
  });
});

describe('nodes/status patches', () => {
  const volume = (id: string) => ({ name: `kubernetes.io/csi/ebs.csi.aws.com^${id}`, devicePath: '/dev/xvdaa' });

  it.each([
    ['a merge patch', merge],
    ['a strategic merge patch (volumesAttached is an atomic list)', strategic],
  ])('%s replaces volumesAttached whole and leaves the rest of status alone', async (_name, strategy) => {
    sandbox.seed([node('n-status', { volumesAttached: [volume('vol-1'), volume('vol-2')], volumesInUse: ['x'] })]);
    const patched = await core.patchNodeStatus({ name: 'n-status', body: { status: { volumesAttached: [volume('vol-3')] } } }, strategy);
    expect(patched.status?.volumesAttached).toEqual([volume('vol-3')]);
    expect(patched.status?.volumesInUse).toEqual(['x']);
    expect(patched.status?.conditions?.[0]?.type).toBe('Ready');
  });

  it('merges conditions by type in a strategic merge patch', async () => {
    sandbox.seed([
      node('n-conditions', {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'DiskPressure', status: 'False' },
        ],
      }),
    ]);
    const patched = await core.patchNodeStatus(
      { name: 'n-conditions', body: { status: { conditions: [{ type: 'Ready', status: 'False' }] } } },
      strategic,
    );
    expect(patched.status?.conditions?.map((c) => `${c.type}=${c.status}`)).toEqual(['Ready=False', 'DiskPressure=False']);
  });

  it('ignores spec in a status patch and status in a main-resource patch', async () => {
    sandbox.seed([node('n-split')]);
    await core.patchNodeStatus({ name: 'n-split', body: { spec: { unschedulable: true }, status: { volumesInUse: ['a'] } } }, merge);
    await core.patchNode({ name: 'n-split', body: { spec: { unschedulable: true }, status: { volumesInUse: ['b'] } } }, merge);
    const stored = sandbox.get('Node', undefined, 'n-split');
    expect(stored.spec.unschedulable).toBe(true);
    expect(stored.status.volumesInUse).toEqual(['a']);
  });
});

describe('deletion', () => {
  it('keeps an object with finalizers, marked for deletion, until the last finalizer goes', async () => {
    await storage.createVolumeAttachment({ body: volumeAttachment('csi-final', 'n1', ['external-attacher/ebs-csi-aws-com']) });
    await storage.deleteVolumeAttachment({ name: 'csi-final' });
    const marked = await storage.readVolumeAttachment({ name: 'csi-final' });
    expect(marked.metadata?.deletionTimestamp).toBeDefined();
    await storage.patchVolumeAttachment({ name: 'csi-final', body: { metadata: { finalizers: null } } }, merge);
    expect(await codeOf(storage.readVolumeAttachment({ name: 'csi-final' }))).toBe(404);
  });

  it('refuses new finalizers on an object being deleted', async () => {
    await storage.createVolumeAttachment({ body: volumeAttachment('csi-closing', 'n1', ['a/keep']) });
    await storage.deleteVolumeAttachment({ name: 'csi-closing' });
    expect(
      await codeOf(storage.patchVolumeAttachment({ name: 'csi-closing', body: { metadata: { finalizers: ['a/keep', 'b/new'] } } }, merge)),
    ).toBe(422);
  });

  it('deletes a scheduled pod gracefully unless the grace period is 0', async () => {
    sandbox.seed([pod('default', 'graceful', 'n1')]);
    await core.deleteNamespacedPod({ namespace: 'default', name: 'graceful' });
    expect(sandbox.get('Pod', 'default', 'graceful').metadata.deletionGracePeriodSeconds).toBe(30);
    await core.deleteNamespacedPod({ namespace: 'default', name: 'graceful', gracePeriodSeconds: 0 });
    expect(sandbox.get('Pod', 'default', 'graceful')).toBeUndefined();
  });
});

describe('create', () => {
  it('fills uid, creationTimestamp and a generated name, and resets the status of a new VolumeAttachment', async () => {
    const created = await storage.createVolumeAttachment({
      body: {
        metadata: { generateName: 'csi-' },
        spec: { attacher: 'ebs.csi.aws.com', nodeName: 'n1', source: { persistentVolumeName: 'pv' } },
        status: { attached: true },
      },
    });
    expect(created.metadata?.name).toMatch(/^csi-[a-z0-9]{5}$/);
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(created.status).toEqual({ attached: false }); // the status struct is always serialised
  });

  it('answers 422 for an object without a name', async () => {
    expect(
      await codeOf(
        storage.createVolumeAttachment({
          body: { metadata: {}, spec: { attacher: 'a', nodeName: 'n', source: { persistentVolumeName: 'p' } } },
        }),
      ),
    ).toBe(422);
  });

  it('records core/v1 events in a namespace and finds them by involvedObject', async () => {
    await core.createNamespacedEvent({
      namespace: 'default',
      body: {
        metadata: { name: 'web.1' },
        involvedObject: { kind: 'Pod', namespace: 'default', name: 'web' },
        reason: 'SuccessfulAttachVolume',
        type: 'Normal',
        message: 'ok',
      },
    });
    const events = await core.listNamespacedEvent({
      namespace: 'default',
      fieldSelector: 'involvedObject.name=web,reason=SuccessfulAttachVolume',
    });
    expect(events.items.map((e) => e.metadata.name)).toEqual(['web.1']);
  });
});
