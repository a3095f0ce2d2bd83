/**
 * kcm's event recorder for pods (client-go's legacy recorder, source `attachdetach-controller`):
 * core/v1 Events named `<pod>.<hex time>`; a repeat of the same event (object, type, reason,
 * message) is aggregated as the recorder's correlator does: count + 1 and a new lastTimestamp.
 */
import type { ComponentClient } from '../kube/components.js';
import type { PodRef } from './desired.js';

const COMPONENT = 'attachdetach-controller';

function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export class PodEvents {
  private readonly recorded = new Map<string, string>();
  private serial = 0;

  constructor(
    private readonly components: ComponentClient,
    private readonly now: () => number,
  ) {}

  record(pod: PodRef, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const key = [pod.namespace, pod.name, pod.uid, type, reason, message].join('\u0000');
    const at = timestamp(this.now());
    const existing = this.recorded.get(key);
    if (existing && this.bump(pod.namespace, existing, at)) return;
    this.serial += 1;
    const name = `${pod.name}.${(BigInt(this.now()) * 1_000_000n + BigInt(this.serial)).toString(16)}`;
    this.components.create('Event', pod.namespace, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: pod.namespace },
      involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: pod.namespace, name: pod.name, uid: pod.uid },
      type,
      reason,
      message,
      source: { component: COMPONENT },
      reportingComponent: COMPONENT,
      reportingInstance: '',
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
    });
    this.recorded.set(key, name);
  }

  /** False when the event is gone (TTL, a test's cleanup): a new one is created instead. */
  private bump(namespace: string, name: string, at: string): boolean {
    try {
      this.components.update('Event', namespace, name, (e) => ({ ...e, count: Number(e.count ?? 1) + 1, lastTimestamp: at }));
      return true;
    } catch {
      return false;
    }
  }
}
