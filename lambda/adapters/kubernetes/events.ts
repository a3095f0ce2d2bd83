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

/** The object an event is about; cluster-scoped ones (a VolumeAttachment) have their events in `default`, as client-go puts them. */
interface InvolvedObject {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

const podObject = (pod: PodRef): InvolvedObject => ({ apiVersion: 'v1', kind: 'Pod', ...pod });

function eventKey(component: string, o: InvolvedObject, event: ClusterEvent): string {
  return [component, o.kind, o.namespace, o.name, o.uid, o.apiVersion, event.type, event.reason, event.message].join('\u0000');
}

/** `<object>.<16 hex of sha256(key)>`: a DNS subdomain, the same for every repeat of the key. */
export function eventName(component: string, pod: PodRef, event: ClusterEvent): string {
  return objectEventName(component, podObject(pod), event);
}

function objectEventName(component: string, o: InvolvedObject, event: ClusterEvent): string {
  const hash = createHash('sha256')
    .update(eventKey(component, o, event), 'utf8')
    .digest('hex')
    .slice(0, HASH_CHARS);
  const prefix = o.name.slice(0, MAX_NAME - HASH_CHARS - 1).replace(/[.-]+$/, '');
  return `${prefix}.${hash}`;
}

function newEvent(w: EventWriter, o: InvolvedObject, event: ClusterEvent): CoreV1Event {
  const now = w.now();
  const { namespace, name, uid, kind, apiVersion } = o;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: objectEventName(w.component, o, event), namespace },
    involvedObject: { apiVersion, kind, ...(kind === 'Pod' ? { namespace } : {}), name, uid },
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

export function recordEvent(w: EventWriter, pod: PodRef, event: ClusterEvent): Promise<void> {
  return recordObjectEvent(w, podObject(pod), event);
}

/** An event on a VolumeAttachment (attacher mode), aggregated like a pod's. */
export function recordVolumeAttachmentEvent(w: EventWriter, va: { name: string; uid: string }, event: ClusterEvent): Promise<void> {
  return recordObjectEvent(w, { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', namespace: 'default', ...va }, event);
}

async function recordObjectEvent(w: EventWriter, o: InvolvedObject, event: ClusterEvent): Promise<void> {
  const body = newEvent(w, o, event);
  const name = body.metadata.name ?? '';
  const where = `event ${o.namespace}/${name}`;
  for (let attempt = 0; attempt <= w.maxConflictRetries; attempt++) {
    try {
      await w.core.createNamespacedEvent({ namespace: o.namespace, body });
      return;
    } catch (error) {
      // The namespace is gone, and the pod with it: nobody can read the event.
      if (isNotFound(error)) return;
      if (!isAlreadyExists(error)) throw new Error(`creating ${where} failed: ${describeApiError(error)}`, { cause: error });
    }
    const existing = await getOrUndefined(where, () => w.core.readNamespacedEvent({ namespace: o.namespace, name }));
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
