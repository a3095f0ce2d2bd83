/** Small readers for loosely typed JSON objects (API objects are read per kind, not typed in full). */

export type JsonMap = Record<string, unknown>;

export function asMap(value: unknown): JsonMap {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonMap) : {};
}

export function asMaps(value: unknown): JsonMap[] {
  return Array.isArray(value) ? value.map(asMap) : [];
}

/** A scalar as text; '' for anything else (absent, object, list). */
export function text(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}
