/**
 * A dry run reads everything and plans, but changes nothing: its store accepts writes without
 * keeping them (so seeding and verification still shape the plan in memory), and the executor
 * never runs.
 */
import type { VolumeStore } from '../../ports/volume-store.js';

export function dryRunStore(store: VolumeStore): VolumeStore {
  return {
    get: (volumeId) => store.get(volumeId),
    getMany: (volumeIds) => store.getMany(volumeIds),
    scan: (options) => store.scan(options),
    getControllerState: () => store.getControllerState(),
    put: (next) => Promise.resolve({ ok: true, record: { ...next, version: next.version + 1 } }),
    remove: () => Promise.resolve({ ok: true }),
    putControllerState: () => Promise.resolve({ ok: true }),
    reservedDevices: (instanceId, now) => store.reservedDevices(instanceId, now),
    reserveDevice: () => Promise.resolve(true),
    releaseDevice: () => Promise.resolve(),
  };
}
