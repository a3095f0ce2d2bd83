import { describe, expect, it } from 'vitest';
import { groupByTarget } from '../../lambda/handlers/targets.js';
import type { Target } from '../../lambda/reconcile/pass/types.js';
import { instanceOf, vol } from '../core/builders.js';

const podTarget = (namespace: string, name: string, nodeHint?: string): Target => ({
  kind: 'pod',
  namespace,
  name,
  ...(nodeHint === undefined ? {} : { nodeHint }),
});

describe('one targeted pass per target of a batch', () => {
  it.each<{ case: string; first: Target; second: Target }>([
    { case: 'pods of the same name in two namespaces', first: podTarget('team-a', 'db-0'), second: podTarget('team-b', 'db-0') },
    { case: 'two pods of one namespace', first: podTarget('default', 'db-0'), second: podTarget('default', 'db-1') },
    { case: 'two nodes', first: { kind: 'node', name: 'node-a' }, second: { kind: 'node', name: 'node-b' } },
    {
      case: 'two instances',
      first: { kind: 'instance', instanceId: instanceOf('node-a') },
      second: { kind: 'instance', instanceId: instanceOf('node-b') },
    },
    { case: 'two volumes', first: { kind: 'volume', volumeId: vol(1) }, second: { kind: 'volume', volumeId: vol(2) } },
    { case: 'a pod and a node of the same name', first: podTarget('default', 'node-a'), second: { kind: 'node', name: 'node-a' } },
  ])('runs separate passes for $case', ({ first, second }) => {
    expect(
      groupByTarget([
        { target: first, item: 'm1' },
        { target: second, item: 'm2' },
      ]),
    ).toEqual([
      { target: first, items: ['m1'] },
      { target: second, items: ['m2'] },
    ]);
  });

  it('runs one pass for every message naming the same target, for the first target seen (a later node hint is not a new target)', () => {
    const first = podTarget('default', 'db-0');
    const node: Target = { kind: 'node', name: 'node-a' };

    const groups = groupByTarget([
      { target: first, item: 'm1' },
      { target: node, item: 'm2' },
      { target: podTarget('default', 'db-0', 'node-b'), item: 'm3' },
      { target: { kind: 'node', name: 'node-a' }, item: 'm4' },
    ]);

    expect(groups).toEqual([
      { target: first, items: ['m1', 'm3'] },
      { target: node, items: ['m2', 'm4'] },
    ]);
    expect(groups[0]!.target).toBe(first);
  });

  it('runs no pass for a batch that names no target', () => {
    expect(groupByTarget([])).toEqual([]);
  });
});
