/**
 * List and watch through client-node against the local API server: a paged list and the revision it
 * was read at, then the changes after it as signals (mapped objects, bookmarks), a 410 as `expired`,
 * the server's deadline as `closed`, and nothing after `stop`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WatchSignal } from '../../lambda/ports/cluster-watch.js';
import { manualScheduler } from '../kube-sandbox/watch-support.js';
import { node, pod, startHarness, volumeAttachment, type Harness } from './support.js';

let h: Harness;
const clock = manualScheduler();

beforeAll(async () => {
  h = await startHarness({ sandbox: { watchScheduler: clock.schedule } });
  h.sandbox.seed([node('node-1'), node('node-2'), node('node-3'), pod('shop', 'web-1', 'node-1')]);
});
afterAll(() => h.stop());

/** Signals as they arrive, and a way to wait for the first `count`. */
function recorder() {
  const signals: WatchSignal[] = [];
  const waiters: { count: number; done: () => void }[] = [];
  return {
    signals,
    listener: (signal: WatchSignal) => {
      signals.push(signal);
      for (const w of [...waiters])
        if (signals.length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.done();
        }
    },
    until: (count: number) =>
      new Promise<WatchSignal[]>((resolve) => {
        const done = () => resolve(signals.slice(0, count));
        if (signals.length >= count) done();
        else waiters.push({ count, done });
      }),
  };
}

const brief = (s: WatchSignal) => ('object' in s ? `${s.type} ${s.object.metadata.name}` : s.type);

describe('listToWatch', () => {
  it('reads every page and the revision of the list', async () => {
    const start = await h.cluster.listToWatch('nodes');
    expect(start.objects.map((n) => n.metadata.name).sort()).toEqual(['node-1', 'node-2', 'node-3']);
    expect(start.resourceVersion).toBe(h.sandbox.resourceVersion());
    expect(h.sandbox.requests().filter((r) => r.verb === 'list' && r.resource === 'nodes').length).toBeGreaterThanOrEqual(2);
  });
});

describe('watch', () => {
  it('streams the writes after the revision as mapped objects, then a bookmark, and closes at the deadline', async () => {
    const from = h.sandbox.resourceVersion();
    const heard = recorder();
    await h.cluster.watch('pods', from, heard.listener, { timeoutSeconds: 30 });
    h.sandbox.seed([pod('shop', 'web-2', 'node-2')]);
    h.sandbox.kubelet.deletePod('shop', 'web-2');
    const [added, deleted] = await heard.until(2);
    expect([added, deleted].map((s) => s && brief(s))).toEqual(['added web-2', 'deleted web-2']);
    expect(added).toMatchObject({ object: { spec: { nodeName: 'node-2' } }, resourceVersion: String(Number(from) + 1) });
    clock.advance(28_000);
    const [, , bookmark] = await heard.until(3);
    expect(bookmark).toEqual({ type: 'bookmark', resourceVersion: h.sandbox.resourceVersion() });
    clock.advance(2_000);
    expect((await heard.until(4))[3]).toEqual({ type: 'closed' });
  });

  it('reports a revision the server no longer keeps as expired, once', async () => {
    const old = h.sandbox.resourceVersion();
    h.sandbox.seed([node('node-4')]);
    h.sandbox.compact();
    const heard = recorder();
    await h.cluster.watch('nodes', old, heard.listener, { timeoutSeconds: 30 });
    expect(await heard.until(1)).toEqual([{ type: 'expired' }]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard.signals).toHaveLength(1);
  });

  it('maps VolumeAttachments and says nothing more once stopped', async () => {
    const heard = recorder();
    const stream = await h.cluster.watch('volumeattachments', h.sandbox.resourceVersion(), heard.listener, { timeoutSeconds: 30 });
    h.sandbox.seed([volumeAttachment('va-1', 'node-1', 'pv-1', ['external-attacher/ebs-csi-aws-com'])]);
    const [first] = await heard.until(1);
    expect(first).toMatchObject({
      type: 'added',
      object: { spec: { nodeName: 'node-1' }, metadata: { finalizers: ['external-attacher/ebs-csi-aws-com'] } },
    });
    stream.stop();
    h.sandbox.seed([volumeAttachment('va-2', 'node-2', 'pv-2')]);
    clock.advance(30_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard.signals).toHaveLength(1);
  });

  it('a watch that cannot be opened is closed with the reason, not a rejection', async () => {
    h.sandbox.faults.failNext({ method: 'GET', path: '/api/v1/nodes' }, 1, 403);
    const heard = recorder();
    await h.cluster.watch('nodes', h.sandbox.resourceVersion(), heard.listener, { timeoutSeconds: 30 });
    const [closed] = await heard.until(1);
    expect(closed?.type).toBe('closed');
    expect(closed?.type === 'closed' ? closed.error : '').toMatch(/Forbidden/);
    h.sandbox.faults.clear();
  });
});
