/** The order volumes start in: handoffs (a pending pod waits for the volume elsewhere) first, plan order otherwise. */
import { describe, expect, it } from 'vitest';
import type { AttachAction, DetachAction } from '../../../lambda/core/actions.js';
import { volumesInPriority } from '../../../lambda/reconcile/pass/execute-order.js';

const attach = (volume: string, node: string): AttachAction => ({
  kind: 'attach',
  volumeId: volume,
  uniqueName: `u-${volume}`,
  nodeName: node,
  instanceId: `i-${node}`,
  multiAttach: false,
  pods: [],
  reason: 'desired',
});
const detach = (volume: string, node: string): DetachAction => ({
  kind: 'detach',
  volumeId: volume,
  uniqueName: `u-${volume}`,
  nodeName: node,
  instanceId: `i-${node}`,
  trigger: 'unmounted',
  ec2Force: false,
  requiresUnreport: true,
  reason: 'not desired',
});
/** `detach v on a`, `attach v on b`, … per group, in the order the groups start. */
const shown = (groups: ReturnType<typeof volumesInPriority>) => groups.map((g) => g.map((a) => `${a.kind} ${a.volumeId} on ${a.nodeName}`));

describe('volumesInPriority', () => {
  it.each([
    [
      'a handoff goes before new attaches and plain detaches, keeping detach before attach',
      [attach('v1', 'a'), detach('v2', 'a'), detach('v3', 'a'), attach('v3', 'b'), attach('v4', 'b')],
      [['detach v3 on a', 'attach v3 on b'], ['attach v1 on a'], ['detach v2 on a'], ['attach v4 on b']],
    ],
    [
      'without handoffs, plan order',
      [attach('v1', 'a'), detach('v2', 'a'), attach('v4', 'b')],
      [['attach v1 on a'], ['detach v2 on a'], ['attach v4 on b']],
    ],
    [
      'a stuck attach detached and attached again on the same node is no handoff',
      [attach('v1', 'a'), detach('v2', 'b'), attach('v2', 'b')],
      [['attach v1 on a'], ['detach v2 on b', 'attach v2 on b']],
    ],
    [
      'several handoffs keep their plan order',
      [detach('v5', 'a'), attach('v5', 'b'), attach('v1', 'a'), detach('v6', 'b'), attach('v6', 'c')],
      [['detach v5 on a', 'attach v5 on b'], ['detach v6 on b', 'attach v6 on c'], ['attach v1 on a']],
    ],
  ])('%s', (_name, actions, expected) => {
    expect(shown(volumesInPriority(actions))).toEqual(expected);
  });
});
