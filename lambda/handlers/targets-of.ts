/** Which targeted pass an event asks for. */
import type { Target } from '../reconcile/pass/types.js';
import { EC2_STOPPING_STATES } from './contracts.js';
import { DnsSubdomainSchema } from './kubernetes-names.js';
import type { Ec2StateChange, KubernetesEvent } from './event-schemas.js';

/** kube-scheduler's binding event: `Successfully assigned <namespace>/<name> to <node>` (reason `Scheduled`). */
const SCHEDULED_MESSAGE = /^Successfully assigned ([^/\s]+)\/(\S+) to (\S+)$/;

export function targetOfKubernetesEvent(event: KubernetesEvent): Target {
  const object = event.detail.involvedObject;
  if (object.kind !== 'Pod') return { kind: 'node', name: object.name };
  const target: Target = { kind: 'pod', namespace: object.namespace ?? '', name: object.name };
  const nodeHint = scheduledTo(event, target.namespace, target.name);
  return nodeHint === undefined ? target : { ...target, nodeHint };
}

/**
 * The node a `Scheduled` event names for this very pod, if it does. Only a valid node name is kept:
 * it ends up in a field selector, where anything else could narrow the list of that node's pods.
 */
function scheduledTo(event: KubernetesEvent, namespace: string, name: string): string | undefined {
  if (event.detail.reason !== 'Scheduled') return undefined;
  const match = SCHEDULED_MESSAGE.exec(event.detail.message ?? '');
  if (match?.[1] !== namespace || match[2] !== name) return undefined;
  const node = DnsSubdomainSchema.safeParse(match[3]);
  return node.success ? node.data : undefined;
}

const STATES_OF_INTEREST = new Set<string>(EC2_STOPPING_STATES);

export function targetOfEc2Event(event: Ec2StateChange): Target | undefined {
  return STATES_OF_INTEREST.has(event.detail.state) ? { kind: 'instance', instanceId: event.detail['instance-id'] } : undefined;
}
