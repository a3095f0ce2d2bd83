/** Targets of targeted passes: a stable key each, so one batch runs one pass per target. */
import type { Target } from '../reconcile/pass/types.js';

export function targetKey(target: Target): string {
  switch (target.kind) {
    case 'pod':
      return `pod/${target.namespace}/${target.name}`;
    case 'node':
      return `node/${target.name}`;
    case 'instance':
      return `instance/${target.instanceId}`;
    case 'volume':
      return `volume/${target.volumeId}`;
  }
}

/** Groups items by their target's key, keeping the first target seen and every item. */
export function groupByTarget<T>(items: { target: Target; item: T }[]): { target: Target; items: T[] }[] {
  const groups = new Map<string, { target: Target; items: T[] }>();
  for (const { target, item } of items) {
    const key = targetKey(target);
    const group = groups.get(key) ?? { target, items: [] };
    group.items.push(item);
    groups.set(key, group);
  }
  return [...groups.values()];
}
