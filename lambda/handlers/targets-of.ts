/** Which targeted pass an event asks for. */
import type { Target } from '../reconcile/types.js';
import { EC2_STOPPING_STATES } from './contracts.js';
import type { Ec2StateChange, KubernetesEvent } from './schemas.js';

export function targetOfKubernetesEvent(event: KubernetesEvent): Target {
  const object = event.detail.involvedObject;
  return object.kind === 'Pod'
    ? { kind: 'pod', namespace: object.namespace ?? '', name: object.name }
    : { kind: 'node', name: object.name };
}

const STATES_OF_INTEREST = new Set<string>(EC2_STOPPING_STATES);

export function targetOfEc2Event(event: Ec2StateChange): Target | undefined {
  return STATES_OF_INTEREST.has(event.detail.state) ? { kind: 'instance', instanceId: event.detail['instance-id'] } : undefined;
}
