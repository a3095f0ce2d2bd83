import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IncompleteReadError } from '../../lambda/ports/cluster.js';
import { node, pod, pv, pvc, seedBound, startHarness, uniqueName, volumeAttachment, type Harness } from './support.js';

let h: Harness;
const five = [1, 2, 3, 4, 5];

beforeAll(async () => {
  h = await startHarness();
  h.sandbox.seed([
    ...five.map((i) => node(`node-${i}`)),
    ...five.map((i) => pod('shop', `web-${i}`, `node-${i}`)),
    ...five.map((i) => pvc('shop', `data-${i}`)),
    ...five.map((i) => pv(`pv-${i}`, `vol-000000000000000${i}`)),
    ...five.map((i) => volumeAttachment(`va-${i}`, `node-${i}`, `pv-${i}`)),
  ]);
});
afterAll(() => h.stop());
beforeEach(() => {
  h.sandbox.faults.clear();
  h.sandbox.resetRequests();
});

const listsOf = (resource: string) => h.sandbox.requests().filter((r) => r.verb === 'list' && r.resource === resource);
const names = (objects: { metadata: { name?: string } }[]) => objects.map((o) => o.metadata.name).sort();

describe('readAll: every page of every list, or an IncompleteReadError', () => {
  it('reads all five objects of each kind over three pages of two', async () => {
    const snapshot = await h.cluster.readAll();
    expect(names(snapshot.nodes)).toEqual(five.map((i) => `node-${i}`));
    expect(names(snapshot.pods)).toEqual(five.map((i) => `web-${i}`));
    expect(names(snapshot.pvcs)).toEqual(five.map((i) => `data-${i}`));
    expect(names(snapshot.pvs)).toEqual(five.map((i) => `pv-${i}`));
    expect(names(snapshot.volumeAttachments)).toEqual(five.map((i) => `va-${i}`));
    for (const resource of ['nodes', 'pods', 'persistentvolumeclaims', 'persistentvolumes', 'volumeattachments']) {
      expect(listsOf(resource), resource).toHaveLength(3);
    }
  });

  it('maps objects to the core shapes, timestamps and all', async () => {
    const snapshot = await h.cluster.readAll();
    const va = snapshot.volumeAttachments.find((v) => v.metadata.name === 'va-1');
    expect(va?.spec).toEqual({
      attacher: 'ebs.csi.aws.com',
      nodeName: 'node-1',
      source: { persistentVolumeName: 'pv-1', inlineVolumeSpec: undefined },
    });
    expect(snapshot.nodes[0]?.metadata.annotations).toHaveProperty('volumes.kubernetes.io/controller-managed-attach-detach', 'true');
  });

  it('retries a page that fails once (a 500) and still returns the whole list', async () => {
    h.sandbox.faults.breakPagination({ path: '/api/v1/pods' }, { page: 2, mode: 'error' });
    const snapshot = await h.cluster.readAll();
    expect(snapshot.pods).toHaveLength(5);
  });

  it('fails with IncompleteReadError when a page keeps failing, instead of returning the pages it got', async () => {
    h.sandbox.faults.breakPagination({ path: '/api/v1/pods' }, { page: 2, mode: 'error', times: 10 });
    const read = h.cluster.readAll();
    await expect(read).rejects.toBeInstanceOf(IncompleteReadError);
    await expect(read).rejects.toThrow(/listing pods failed: 500/);
  });

  it('restarts a list from its first page when the continue token expired (410 Expired)', async () => {
    h.sandbox.faults.breakPagination({ path: '/apis/storage.k8s.io/v1/volumeattachments' }, { page: 3, mode: 'expired' });
    const snapshot = await h.cluster.readAll();
    expect(names(snapshot.volumeAttachments)).toEqual(five.map((i) => `va-${i}`));
    // pages 1, 2, 3 (410), then 1, 2, 3 again
    expect(listsOf('volumeattachments').map((r) => r.status)).toEqual([200, 200, 410, 200, 200, 200]);
  });

  it('gives up after a bounded number of restarts', async () => {
    h.sandbox.faults.breakPagination({ path: '/api/v1/nodes' }, { page: 2, mode: 'expired', times: 100 });
    await expect(h.cluster.readAll()).rejects.toThrow(/listing nodes: continue token expired 4 times; gave up/);
    expect(listsOf('nodes')).toHaveLength(8);
  });
});

describe('targeted reads', () => {
  beforeAll(() => {
    seedBound(h.sandbox, 'team', 'claim-a', 'pv-a', 'vol-0aaaaaaaaaaaaaaaa');
    seedBound(h.sandbox, 'team', 'db-0-scratch', 'pv-e', 'vol-0eeeeeeeeeeeeeeee');
    h.sandbox.seed([
      node('node-x', { volumesInUse: [uniqueName('vol-0aaaaaaaaaaaaaaaa')] }),
      node('node-y'),
      pod('team', 'db-0', 'node-x', [
        { name: 'data', claim: 'claim-a' },
        { name: 'scratch', ephemeral: true },
        { name: 'legacy', ebs: 'vol-0bbbbbbbbbbbbbbbb' },
        { name: 'lost', claim: 'no-such-claim' },
      ]),
      pod('team', 'cache-0', 'node-x', [{ name: 'data', claim: 'claim-a' }]),
      pod('team', 'elsewhere', 'node-y', [{ name: 'data', claim: 'claim-other' }]),
    ]);
  });

  it('readPod returns the pod, its claims (generic ephemeral as <pod>-<volume>) and their volumes; missing claims are left out', async () => {
    const closure = await h.cluster.readPod('team', 'db-0');
    expect(closure.pod?.metadata.name).toBe('db-0');
    expect(closure.pod?.spec?.volumes?.find((v) => v.name === 'legacy')?.awsElasticBlockStore).toEqual({
      volumeID: 'vol-0bbbbbbbbbbbbbbbb',
    });
    expect(names(closure.pvcs)).toEqual(['claim-a', 'db-0-scratch']);
    expect(names(closure.pvs)).toEqual(['pv-a', 'pv-e']);
    expect(closure.pvs.find((v) => v.metadata.name === 'pv-a')?.spec?.claimRef).toMatchObject({ namespace: 'team', name: 'claim-a' });
  });

  it('readPod of a pod that is gone returns no pod and nothing else', async () => {
    expect(await h.cluster.readPod('team', 'gone')).toEqual({ pod: undefined, pvcs: [], pvs: [] });
  });

  it('readPodsOnNode selects by spec.nodeName and reads each claim and volume once', async () => {
    const onNode = await h.cluster.readPodsOnNode('node-x');
    expect(names(onNode.pods)).toEqual(['cache-0', 'db-0']);
    expect(names(onNode.pvcs)).toEqual(['claim-a', 'db-0-scratch']);
    expect(h.sandbox.requests().filter((r) => r.verb === 'list')[0]?.path).toBe('/api/v1/pods');
    expect(h.sandbox.requests().filter((r) => r.verb === 'get' && r.name === 'claim-a')).toHaveLength(1);
  });

  it('readNode and liveVolumes read one node live; a node that is gone is undefined', async () => {
    expect((await h.cluster.readNode('node-x'))?.metadata.name).toBe('node-x');
    expect((await h.cluster.liveVolumes('node-x'))?.inUse).toEqual([uniqueName('vol-0aaaaaaaaaaaaaaaa')]);
    h.sandbox.kubelet.setVolumesInUse('node-x', []);
    expect((await h.cluster.liveVolumes('node-x'))?.inUse).toEqual([]);
    expect(await h.cluster.readNode('node-gone')).toBeUndefined();
    expect(await h.cluster.liveVolumes('node-gone')).toBeUndefined();
  });

  it('a read that fails for another reason than NotFound is an error naming what was read', async () => {
    h.sandbox.faults.failNext({ method: 'GET', path: '/api/v1/nodes/node-x' }, 1, 403);
    await expect(h.cluster.readNode('node-x')).rejects.toThrow(/reading node node-x failed: 403 Forbidden/);
  });
});
