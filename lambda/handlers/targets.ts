/** Targets of targeted passes, grouped so that one batch runs one pass per target. */
import { targetKey, type Target } from '../reconcile/pass/types.js';

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
