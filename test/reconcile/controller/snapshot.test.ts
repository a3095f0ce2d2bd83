/** Merging the pieces a targeted pass reads into one snapshot. */
import { describe, expect, it } from 'vitest';
import { mergeSnapshots } from '../../../lambda/reconcile/controller/snapshot.js';
import { node, pod, pvc } from '../../core/builders.js';

describe('merging targeted reads', () => {
  it('keeps one copy of an object read twice (by uid), the first read', () => {
    const first = pod('db-0', { node: 'node-a' });
    const again = pod('db-0', { node: 'node-b' });

    const merged = mergeSnapshots([
      { pods: [first], nodes: [node('node-a')] },
      { pods: [again], pvcs: [pvc('data')] },
    ]);

    expect(merged.pods).toEqual([first]);
    expect(merged.nodes.map((n) => n.metadata.name)).toEqual(['node-a']);
    expect(merged.pvcs.map((c) => c.metadata.name)).toEqual(['data']);
  });

  it('without a uid, keys by namespace and name: namesakes in two namespaces are two objects', () => {
    const inA = { metadata: { name: 'data', namespace: 'team-a' } };
    const inB = { metadata: { name: 'data', namespace: 'team-b' } };

    const merged = mergeSnapshots([{ pvcs: [inA] }, { pvcs: [inB, { ...inA, spec: {} }] }]);

    expect(merged.pvcs).toEqual([inA, inB]);
  });
});
