/**
 * Events on pods, aggregated like client-go's EventRecorder: a repeat of the same
 * (source, involved object, type, reason, message) bumps `count` and `lastTimestamp` of
 * the Event already there instead of adding another. client-go remembers events in
 * memory; a Lambda forgets between invocations, so the Event's name is derived from that
 * key: the create of a repeat answers 409 AlreadyExists and we patch the existing one.
 */
import { createHash } from 'node:crypto';
import type { CoreV1Api, CoreV1Event } from '@kubernetes/client-node';
import type { PodRef } from '../../core/types.js';
import type { ClusterEvent } from '../../ports/cluster.js';
import { describeApiError, isAlreadyExists, isConflict, isNotFound } from './api-errors.js';
import { mergePatch } from './merge-patch.js';
import { getOrUndefined } from './reads.js';

export const DEFAULT_EVENT_COMPONENT = 'ebs-attach-detach-controller';
/** Longer messages are cut, as the events API limits a note to 1 kB. */
const MAX_EVENT_MESSAGE = 1024;
const MAX_NAME = 253;
const HASH_CHARS = 16;

export interface EventWriter {
  core: CoreV1Api;
  now: () => Date;
  component: string;
  /** `source.host` / `reportingInstance`, e.g. the Lambda function name; optional. */
  instance?: string;
  maxConflictRetries: number;
}

function eventKey(component: string, pod: PodRef, event: ClusterEvent): string {
  return [component, 'Pod', pod.namespace, pod.name, pod.uid, 'v1', event.type, event.reason, event.message].join('\u0000');
}

/** `<pod>.<16 hex of sha256(key)>`: a DNS subdomain, the same for every repeat of the key. */
export function eventName(component: string, pod: PodRef, event: ClusterEvent): string {
  const hash = createHash('sha256')
    .update(eventKey(component, pod, event), 'utf8')
    .digest('hex')
    .slice(0, HASH_CHARS);
  const prefix = pod.name.slice(0, MAX_NAME - HASH_CHARS - 1).replace(/[.-]+$/, '');
  return `${prefix}.${hash}`;
}

function newEvent(w: EventWriter, pod: PodRef, event: ClusterEvent): CoreV1Event {
  const now = w.now();
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: eventName(w.component, pod, event), namespace: pod.namespace },
    involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: pod.namespace, name: pod.name, uid: pod.uid },
    type: event.type,
    reason: event.reason,
    message: event.message.slice(0, MAX_EVENT_MESSAGE),
    source: { component: w.component, host: w.instance },
    reportingComponent: w.component,
    reportingInstance: w.instance,
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
}

export async function recordEvent(w: EventWriter, pod: PodRef, event: ClusterEvent): Promise<void> {
  const body = newEvent(w, pod, event);
  const name = body.metadata.name ?? '';
  const where = `event ${pod.namespace}/${name}`;
  for (let attempt = 0; attempt <= w.maxConflictRetries; attempt++) {
    try {
      await w.core.createNamespacedEvent({ namespace: pod.namespace, body });
      return;
    } catch (error) {
      // The namespace is gone, and the pod with it: nobody can read the event.
      if (isNotFound(error)) return;
      if (!isAlreadyExists(error)) throw new Error(`creating ${where} failed: ${describeApiError(error)}`, { cause: error });
    }
    const existing = await getOrUndefined(where, () => w.core.readNamespacedEvent({ namespace: pod.namespace, name }));
    if (existing === undefined) continue; // expired since our create: create again
    if (await bumpCount(w, existing)) return;
  }
  throw new Error(`${where}: still conflicting after ${w.maxConflictRetries + 1} attempts`);
}

/** count + 1 and a new lastTimestamp, guarded by resourceVersion; false when it changed or vanished. */
async function bumpCount(w: EventWriter, existing: CoreV1Event): Promise<boolean> {
  const { name = '', namespace = '', resourceVersion } = existing.metadata;
  const body = { metadata: { resourceVersion }, count: (existing.count ?? 1) + 1, lastTimestamp: w.now().toISOString() };
  try {
    await w.core.patchNamespacedEvent({ namespace, name, body }, mergePatch);
    return true;
  } catch (error) {
    if (isConflict(error) || isNotFound(error)) return false;
    throw new Error(`patching event ${namespace}/${name} failed: ${describeApiError(error)}`, { cause: error });
  }
}
