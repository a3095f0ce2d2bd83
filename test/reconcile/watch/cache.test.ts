/**
 * The watcher's informer caches (watch/cache.ts) as attacher mode uses them (attacher/watch.ts):
 * the PVs, CSINodes and Nodes are listed and watched beside the VolumeAttachments, changes are
 * applied in the stream's order, a 410 lists again and drops what was deleted meanwhile, and what
 * they hold reaches an attach's pass, never a detach's.
 */
import { describe, expect, it } from 'vitest';
import type { KubeVolumeAttachment } from '../../../lambda/core/kube.js';
import { attacherWatch } from '../../../lambda/reconcile/attacher/watch.js';
import type { Target } from '../../../lambda/reconcile/pass/types.js';
import { WatchCache } from '../../../lambda/reconcile/watch/cache.js';
import { csiNode, kcmVa } from '../../core/attacher/builders.js';
import { node, pv, vol } from '../../core/builders.js';
import { flush, watcherHarness } from './harness.js';

const versioned = <T extends { metadata: { resourceVersion?: string } }>(object: T, resourceVersion: string): T => ({
  ...object,
  metadata: { ...object.metadata, resourceVersion },
});

/** An attacher-mode watcher over a cluster with node-a, its CSINode and pv-data. */
async function attacherWatcher() {
  const w = watcherHarness({ mode: attacherWatch });
  w.cluster.snapshot.pvs = [versioned(pv('pv-data'), '10')];
  w.cluster.snapshot.nodes = [versioned(node('node-a'), '11')];
  w.cluster.csiNodes = [versioned(csiNode('node-a'), '12')];
  const running = w.run();
  await flush();
  const watchOf = (kind: string) => {
    const watch = w.cluster.watches.filter((x) => x.kind === kind).at(-1);
    if (watch === undefined) throw new Error(`no watch of ${kind}`);
    return watch;
  };
  /** kcm creates a VolumeAttachment for pv-data on node-a; the pass it asks for is handed back. */
  const vaCreated = async (object: KubeVolumeAttachment = kcmVa('node-a'), resourceVersion = '200'): Promise<Target> => {
    const before = w.calls.length;
    watchOf('volumeattachments').send({ type: 'added', object: versioned(object, resourceVersion), resourceVersion });
    await flush();
    const call = w.calls[before];
    if (call === undefined) throw new Error('no pass asked for');
    call.finish();
    await flush();
    return call.target;
  };
  return { w, running, watchOf, vaCreated };
}

const knownOf = (target: Target) => (target.kind === 'volumeAttachment' ? target.known : undefined);
const names = (objects: readonly { metadata: { name?: string | null } }[] = []) => objects.map((o) => o.metadata.name);

describe("attacher mode's caches", () => {
  it('lists and watches the PVs, CSINodes and nodes beside the VolumeAttachments, and hands an attach what they hold', async () => {
    const { w, running, vaCreated } = await attacherWatcher();

    expect([...w.cluster.lists].sort()).toEqual(['csinodes', 'nodes', 'persistentvolumes', 'volumeattachments']);
    expect(w.cluster.watches.map((x) => `${x.kind}@${x.resourceVersion}`).sort()).toEqual([
      'csinodes@100',
      'nodes@100',
      'persistentvolumes@100',
      'volumeattachments@100',
    ]);
    const known = knownOf(await vaCreated());
    expect({ pvs: names(known?.pvs), csiNodes: names(known?.csiNodes), nodes: names(known?.nodes) }).toEqual({
      pvs: ['pv-data'],
      csiNodes: ['node-a'],
      nodes: ['node-a'],
    });
    // No checkpoint for a cached kind: it is listed whole at every start.
    await w.end();
    await running;
    expect(Object.keys(Object.fromEntries(w.watchers.checkpoints))).toEqual(['volumeattachments']);
  });

  it("applies each change in the stream's order: a modified object replaces the one held, a deleted one is gone", async () => {
    const { w, running, watchOf, vaCreated } = await attacherWatcher();
    const moved = csiNode('node-a', 'i-0new00000000000000');
    watchOf('csinodes').send({ type: 'modified', object: versioned(moved, '120'), resourceVersion: '120' });
    watchOf('nodes').send({ type: 'deleted', object: versioned(node('node-a'), '121'), resourceVersion: '121' });
    await flush();

    const known = knownOf(await vaCreated());
    expect(known?.csiNodes[0]?.spec?.drivers?.[0]?.nodeID).toBe('i-0new00000000000000');
    expect(known?.nodes).toEqual([]);
    await w.end();
    await running;
  });

  it('after a 410, lists again: what was deleted while the watch was gone is dropped, not kept stale', async () => {
    const { w, running, watchOf, vaCreated } = await attacherWatcher();
    w.cluster.csiNodes = [];
    watchOf('csinodes').send({ type: 'expired' });
    await flush();

    expect(w.cluster.lists.filter((kind) => kind === 'csinodes')).toHaveLength(2);
    expect(knownOf(await vaCreated())?.csiNodes).toEqual([]);
    await w.end();
    expect(await running).toMatchObject({ relists: 1, cacheLists: 4 });
  });

  it('a VolumeAttachment being deleted is handed nothing from the caches: a stale entry is never the ground of a detach', async () => {
    const { w, running, vaCreated } = await attacherWatcher();

    const target = await vaCreated(kcmVa('node-a', { claimed: true, deleting: true }));
    expect(target).toMatchObject({ kind: 'volumeAttachment', name: 'csi-pv-data-node-a' });
    expect(knownOf(target)).toBeUndefined();
    await w.end();
    await running;
  });
});

describe('WatchCache', () => {
  it('answers nothing for a kind not listed yet (the pass then reads it live), and only its own kinds', () => {
    const cache = new WatchCache(['persistentvolumes']);
    cache.apply('persistentvolumes', 'added', pv('pv-data'));
    expect(cache.synced('persistentvolumes')).toBe(false);
    expect(cache.get('persistentvolumes', 'pv-data')).toBeUndefined();

    cache.relist('persistentvolumes');
    cache.relist('nodes');
    cache.apply('persistentvolumes', 'added', pv('pv-data', { volumeId: vol(3) }));
    cache.apply('nodes', 'added', node('node-a'));
    expect(cache.synced('nodes')).toBe(false);
    expect(cache.get('persistentvolumes', 'pv-data')).toMatchObject({ spec: { csi: { volumeHandle: vol(3) } } });
    expect(cache.size()).toBe(1);
  });
});
