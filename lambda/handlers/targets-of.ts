/** Which targeted pass an event asks for. */
import type { Target } from '../reconcile/types.js';
import type { Ec2StateChange, KubernetesEvent } from './schemas.js';

export function targetOfKubernetesEvent(event: KubernetesEvent): Target {
  const object = event.detail.involvedObject;
  return object.kind === 'Pod' ? { kind: 'pod', namespace: object.namespace ?? '', name: object.name } : { kind: 'node', name: object.name };
}

/** Instance states after which the node's volumes may need to move (DESIGN §9). */
const STATES_OF_INTEREST = new Set(['stopping', 'stopped', 'shutting-down', 'terminated']);

export function targetOfEc2Event(event: Ec2StateChange): Target | undefined {
  return STATES_OF_INTEREST.has(event.detail.state) ? { kind: 'instance', instanceId: event.detail['instance-id'] } : undefined;
}
