/**
 * The facts a pass writes onto the records before it acts: whether each node mounts the volume
 * (its volumesInUse), and when a detach was first asked for (the unmount timeout counts from it,
 * across passes), cleared once the volume is wanted again.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../../lambda/core/types.js';
import { attachment, MIN, node, pod, pv, pvc, record, snapshot, T0 } from '../../core/builders.js';
import { harness, V } from '../executor-harness.js';

const podOn = (nodeName: string) => pod('db-0', { node: nodeName, claims: ['data'] });

/** Nodes node-a and node-b, the first `inUse` listing V as mounted; RWX volume V; a pod on `podNode` (none when undefined). */
function scene(inUse: string[], podNode?: string) {
  return snapshot({
    nodes: ['node-a', 'node-b'].map((n) => node(n, { inUse: inUse.includes(n) ? [V] : [] })),
    pods: podNode === undefined ? [] : [podOn(podNode)],
    pvcs: [pvc('data')],
    pvs: [pv('pv-data', { volumeId: V, modes: ['ReadWriteMany'], volumeMode: 'Block' })],
  });
}

const multi = (...attachments: ReturnType<typeof attachment>[]) => record(V, attachments, { multiAttach: true });

/** Warnings the pass logged about volume V, with their fields. */
function warningsAbout(h: ReturnType<typeof harness>) {
  const warnings: Record<string, unknown>[] = [];
  h.deps.log = { ...h.deps.log, warn: (_: string, extra?: object) => void warnings.push({ ...extra }) };
  return () => warnings.filter((w) => w.volumeId === V && 'reason' in w);
}

describe('whether each node mounts the volume', () => {
  it.each([
    ['a node that now lists it in use: mounted', ['node-a'], false, true],
    ['a node that no longer lists it: not mounted', [], true, false],
  ])('%s', async (_, inUse, before, after) => {
    const h = harness(scene(inUse, 'node-a'), [multi(attachment('node-a', { mounted: before }))]);

    await h.pass();

    expect(h.store.items.get(V)?.attachments['node-a']?.mounted).toBe(after);
  });
});

describe('when a detach was first asked for', () => {
  it('unneeded on two mounted nodes at once: each remembers the pass time, nothing is detached yet', async () => {
    const h = harness(scene(['node-a', 'node-b']), [
      multi(attachment('node-a', { mounted: true }), attachment('node-b', { mounted: true })),
    ]);

    const report = await h.pass();

    expect(h.ec2.calls).toEqual([]);
    expect(report.results).toEqual([]);
    const stored = h.store.items.get(V)!;
    expect([stored.attachments['node-a']?.detachRequestedAt, stored.attachments['node-b']?.detachRequestedAt]).toEqual([T0, T0]);
  });

  it('a later pass keeps the first time', async () => {
    const h = harness(scene(['node-a']), [multi(attachment('node-a', { mounted: true, detachRequestedAt: T0 - MIN }))]);

    await h.pass();

    expect(h.store.items.get(V)?.attachments['node-a']?.detachRequestedAt).toBe(T0 - MIN);
  });

  it('wanted again by a pod: the time is cleared', async () => {
    const h = harness(scene(['node-a'], 'node-a'), [multi(attachment('node-a', { mounted: true, detachRequestedAt: T0 - MIN }))]);

    await h.pass();

    expect(h.store.items.get(V)?.attachments['node-a']).not.toHaveProperty('detachRequestedAt');
  });
});

describe('writing the facts against other passes', () => {
  it('the record changed underneath, node-b detached meanwhile: the facts are re-applied to the fresh copy, node-b’s request dropped', async () => {
    const h = harness(scene(['node-a', 'node-b'], 'node-a'), [
      multi(attachment('node-a', { mounted: false }), attachment('node-b', { mounted: true })),
    ]);
    const warnings = warningsAbout(h);
    let raced = false;
    h.store.beforePut = () => {
      if (raced) return;
      raced = true;
      const current = h.store.items.get(V)!;
      const { 'node-b': _gone, ...rest } = current.attachments;
      h.store.items.set(V, { ...current, attachments: rest, version: current.version + 1 });
    };

    await h.pass();

    const stored = h.store.items.get(V)!;
    expect(Object.keys(stored.attachments)).toEqual(['node-a']);
    expect(stored.attachments['node-a']?.mounted).toBe(true);
    expect(warnings()).toEqual([]);
  });

  it('a record that keeps changing: the facts are given up with a warning naming the volume and why', async () => {
    const h = harness(scene(['node-a'], 'node-a'), [multi(attachment('node-a', { mounted: false }))]);
    const warnings = warningsAbout(h);
    h.store.beforePut = (next: VolumeRecord) => {
      const current = h.store.items.get(next.volumeId)!;
      h.store.items.set(next.volumeId, { ...current, version: current.version + 1 });
    };

    await h.pass();

    expect(h.store.items.get(V)?.attachments['node-a']?.mounted).toBe(false);
    expect(warnings()).toEqual([{ volumeId: V, reason: expect.stringContaining(V) as string }]);
  });

  it('a fact written without trouble logs no warning', async () => {
    const h = harness(scene(['node-a'], 'node-a'), [multi(attachment('node-a', { mounted: false }))]);
    const warnings = warningsAbout(h);

    await h.pass();

    expect(h.store.items.get(V)?.attachments['node-a']?.mounted).toBe(true);
    expect(warnings()).toEqual([]);
  });
});
