import type { DeviceClaims } from '../../lambda/ports/block-storage.js';

/**
 * Device claims held in this process, standing in for the store's (reconcile/pass/device-claims.ts) in
 * adapter tests: the first candidate nobody here holds; refused and unused names are recorded.
 */
export function memoryClaims(held = new Set<string>()): DeviceClaims & { refusedNames: string[]; unusedNames: string[] } {
  const refusedNames: string[] = [];
  const unusedNames: string[] = [];
  return {
    refusedNames,
    unusedNames,
    claim: (candidates) => {
      const device = candidates.find((name) => !held.has(name));
      if (device !== undefined) held.add(device);
      return Promise.resolve(device);
    },
    refused: (device) => Promise.resolve(void refusedNames.push(device)),
    unused: (device) => Promise.resolve(void (held.delete(device), unusedNames.push(device))),
  };
}
