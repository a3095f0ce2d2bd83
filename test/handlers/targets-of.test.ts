import { describe, expect, it } from 'vitest';
import { KubernetesEventSchema } from '../../lambda/handlers/event-schemas.js';
import { targetOfKubernetesEvent } from '../../lambda/handlers/targets-of.js';
import { kubernetesEvent } from '../../sandbox/events.js';

const AT = Date.UTC(2026, 10, 22, 8, 0, 0);
const pod = { kind: 'Pod' as const, namespace: 'team', name: 'db-0', uid: 'uid-db-0' };
const targetOf = (reason: string, message: string) =>
  targetOfKubernetesEvent(KubernetesEventSchema.parse(kubernetesEvent(pod, reason, message, AT)));

describe("a pod event's target", () => {
  it.each([
    ["kube-scheduler's binding names the node", 'Scheduled', 'Successfully assigned team/db-0 to node-1', 'node-1'],
    ['a node name with dots', 'Scheduled', 'Successfully assigned team/db-0 to ip-10-0-0-1.ec2.internal', 'ip-10-0-0-1.ec2.internal'],
    ['another reason', 'Pulled', 'Successfully assigned team/db-0 to node-1', undefined],
    ['a message about another pod', 'Scheduled', 'Successfully assigned team/db-1 to node-1', undefined],
    ['another namespace', 'Scheduled', 'Successfully assigned other/db-0 to node-1', undefined],
    ['a name that is no node name (it would reach a field selector)', 'Scheduled', 'Successfully assigned team/db-0 to n1,x=y', undefined],
    ['an unknown message', 'Scheduled', 'Bound to node-1', undefined],
  ])('%s: node hint %s', (_case, reason, message, nodeHint) => {
    expect(targetOf(reason, message)).toEqual({ kind: 'pod', namespace: 'team', name: 'db-0', ...(nodeHint ? { nodeHint } : {}) });
  });

  it('a Node event targets the node', () => {
    const event = kubernetesEvent(
      { kind: 'Node', name: 'node-1', uid: 'uid-node-1' },
      'NodeNotReady',
      'Node node-1 status is now: NodeNotReady',
      AT,
    );
    expect(targetOfKubernetesEvent(KubernetesEventSchema.parse(event))).toEqual({ kind: 'node', name: 'node-1' });
  });
});
