/**
 * `kubectl delete` of an object held by finalizers (or a pod's grace period) waits for it to go:
 * kubectl's wait (IsDeleted) GETs the object, then runs client-go's UntilWithSync — a LIST with
 * fieldSelector=metadata.name=<name> and a WATCH from that list's resourceVersion with the same
 * selector — until a DELETED event. No kubectl binary here: these tests send the same requests.
 */
/* eslint-disable @typescript-eslint/no-unsafe-member-access --
   tests read response bodies as loosely typed JSON, the way the wire sends them */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.js';
import { pod, raw, volumeAttachment } from './support.js';
import { openWatch } from './watch-support.js';

let sandbox: KubeSandbox;

beforeAll(async () => {
  sandbox = await startKubeSandbox();
});
afterAll(() => sandbox.stop());

const vaPath = '/apis/storage.k8s.io/v1/volumeattachments';

/** kubectl's wait after the DELETE: GET, LIST by name (reflector: resourceVersion=0, limit=500), then the WATCH it opens. */
async function kubectlWaitsFor(collection: string, name: string) {
  expect((await raw(sandbox, 'GET', `${collection}/${name}`)).status).toBe(200);
  const selector = `fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`;
  const list = await raw(sandbox, 'GET', `${collection}?${selector}&limit=500&resourceVersion=0`);
  const items = list.body.items as { metadata: { name: string } }[];
  expect(items.map((i) => i.metadata.name)).toEqual([name]);
  const from = list.body.metadata.resourceVersion as string;
  return openWatch(sandbox, `${collection}?allowWatchBookmarks=true&${selector}&resourceVersion=${from}&timeoutSeconds=377&watch=true`);
}

describe('kubectl delete --wait of an object with finalizers', () => {
  it('sees DELETED once the last finalizer is removed', async () => {
    sandbox.seed([volumeAttachment('csi-held', 'n1', ['external-attacher/ebs-csi-aws-com']), volumeAttachment('csi-other', 'n1')]);
    const deleted = await raw(sandbox, 'DELETE', `${vaPath}/csi-held`, { body: { propagationPolicy: 'Background' } });
    expect(deleted.status).toBe(200);
    expect(deleted.body.metadata.deletionTimestamp).toBeDefined();
    const watch = await kubectlWaitsFor(vaPath, 'csi-held');
    // The attacher's part: detach, then drop the finalizer; another object's writes are not seen.
    await raw(sandbox, 'PATCH', `${vaPath}/csi-other`, {
      body: { metadata: { labels: { a: 'b' } } },
      contentType: 'application/merge-patch+json',
    });
    await raw(sandbox, 'PATCH', `${vaPath}/csi-held`, {
      body: { metadata: { finalizers: null } },
      contentType: 'application/merge-patch+json',
    });
    const [event] = await watch.until(1);
    watch.close();
    expect(event).toMatchObject({ type: 'DELETED', object: { kind: 'VolumeAttachment', metadata: { name: 'csi-held' } } });
    expect((await raw(sandbox, 'GET', `${vaPath}/csi-held`)).status).toBe(404);
  });

  it('sees DELETED from history when the finalizer went between its LIST and its WATCH', async () => {
    sandbox.seed([volumeAttachment('csi-quick', 'n1', ['external-attacher/ebs-csi-aws-com'])]);
    await raw(sandbox, 'DELETE', `${vaPath}/csi-quick`);
    const selector = `fieldSelector=${encodeURIComponent('metadata.name=csi-quick')}`;
    const list = await raw(sandbox, 'GET', `${vaPath}?${selector}&limit=500&resourceVersion=0`);
    await raw(sandbox, 'PATCH', `${vaPath}/csi-quick`, {
      body: { metadata: { finalizers: [] } },
      contentType: 'application/merge-patch+json',
    });
    const watch = await openWatch(sandbox, `${vaPath}?${selector}&resourceVersion=${list.body.metadata.resourceVersion}&watch=true`);
    const [event] = await watch.until(1);
    watch.close();
    expect(event?.type).toBe('DELETED');
  });

  it('sees DELETED for a pod once its grace period is over', async () => {
    sandbox.seed([pod('default', 'graceful', 'n1')]);
    const deleted = await raw(sandbox, 'DELETE', '/api/v1/namespaces/default/pods/graceful');
    expect(deleted.body.metadata.deletionTimestamp).toBeDefined();
    const watch = await kubectlWaitsFor('/api/v1/namespaces/default/pods', 'graceful');
    sandbox.kubelet.deletePod('default', 'graceful', { graceful: false });
    const [event] = await watch.until(1);
    watch.close();
    expect(event).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'graceful' } } });
  });
});
