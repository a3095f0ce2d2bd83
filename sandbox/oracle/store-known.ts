/**
 * Invariant 4 as a running check: once a crashed operation's lease has passed, every attachment EC2
 * holds is known to the store (as an attachment or an operation of its volume's item). Before
 * that, an intent may legitimately be all the store has, or a pass may still be writing.
 */
import type { Violation } from './checks.js';
import type { Truth } from './truth.js';

/** `volumeId|instanceId` pairs the store knows, from attachments and in-flight operations alike. */
export type StoreKnows = Set<string>;

export const storePair = (volumeId: string, instanceId: string) => `${volumeId}|${instanceId}`;

export function unknownToStore(truth: Truth, knows: StoreKnows, leaseMs: number): Violation[] {
  return (
    truth.attachments
      // A `detaching` attachment leaves by itself; a stuck (`busy`) one still needs the store's attention.
      .filter(
        (a) =>
          a.state !== 'detaching' &&
          a.attachedAt !== undefined &&
          truth.at - a.attachedAt > leaseMs &&
          !knows.has(storePair(a.volumeId, a.instanceId)),
      )
      .map((a) => ({
        invariant: 4 as const,
        message: `${a.volumeId} is ${a.state} on ${a.instanceId} since ${truth.at - (a.attachedAt ?? 0)} ms ago, and the store knows nothing of it (lease ${leaseMs} ms)`,
      }))
  );
}

/** What the store knows, from its raw (unmarshalled) volume items. */
export function storeKnows(items: Record<string, unknown>[]): StoreKnows {
  const knows: StoreKnows = new Set();
  for (const item of items) {
    if (typeof item.volumeId !== 'string') continue;
    const entries = [
      ...Object.values((item.attachments ?? {}) as Record<string, { instanceId?: string }>),
      ...Object.values((item.operations ?? {}) as Record<string, { instanceId?: string }>),
    ];
    for (const entry of entries) if (entry.instanceId) knows.add(storePair(item.volumeId, entry.instanceId));
  }
  return knows;
}
