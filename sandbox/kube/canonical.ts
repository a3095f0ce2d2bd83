/**
 * What an object looks like once the API server has decoded and re-encoded it: metav1.Time
 * fields at second precision (RFC 3339), metav1.MicroTime fields at microseconds, and struct
 * fields Go always serialises present (a VolumeAttachment's `status.attached`).
 */
import type { ResourceType } from './resources.js';
import type { KubeObject } from './store.js';

/** Field names that hold a metav1.Time in the kinds served here (core/v1, storage/v1). */
const TIME_FIELDS = new Set([
  'creationTimestamp',
  'deletionTimestamp',
  'firstTimestamp',
  'lastTimestamp',
  'lastHeartbeatTime',
  'lastTransitionTime',
  'lastProbeTime',
  'lastPhaseTransitionTime',
  'startTime',
  'startedAt',
  'finishedAt',
  'time',
]);

/** metav1.MicroTime fields (events' eventTime and series, a Lease's acquire and renew times). */
const MICRO_TIME_FIELDS = new Set(['eventTime', 'lastObservedTime', 'acquireTime', 'renewTime']);

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function truncated(value: string, micro: boolean): string {
  const match = RFC3339.exec(value);
  if (!match) return value;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) return value;
  const seconds = at.toISOString().slice(0, 19);
  if (!micro) return `${seconds}Z`;
  const fraction = (match[2] ?? '.').slice(1).padEnd(6, '0').slice(0, 6);
  return `${seconds}.${fraction}Z`;
}

function normalizeTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeTimes);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, child]) => {
      if (typeof child === 'string' && TIME_FIELDS.has(key)) return [key, truncated(child, false)];
      if (typeof child === 'string' && MICRO_TIME_FIELDS.has(key)) return [key, truncated(child, true)];
      return [key, normalizeTimes(child)];
    }),
  );
}

// metav1.MicroTime decodes with Go's time.Parse(RFC3339Micro): exactly six fraction digits, or the body is rejected.
const RFC3339_MICRO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

/** The first MicroTime field of `value` that the apiserver's decoder would reject, as `[field, value]`. */
export function badMicroTime(value: unknown, path = ''): [string, string] | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const field = path === '' ? key : `${path}.${key}`;
    if (typeof child === 'string' && MICRO_TIME_FIELDS.has(key) && !RFC3339_MICRO.test(child)) return [field, child];
    const nested = badMicroTime(child, field);
    if (nested) return nested;
  }
  return undefined;
}

/** The object as the server stores and serves it. */
export function canonical(type: ResourceType, object: KubeObject): KubeObject {
  const normalized = normalizeTimes(object) as KubeObject;
  if (type.kind === 'VolumeAttachment') {
    const status = (normalized.status ?? {}) as Record<string, unknown>;
    normalized.status = { ...status, attached: status.attached ?? false };
  }
  return normalized;
}
