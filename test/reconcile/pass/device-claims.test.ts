import { describe, expect, it } from 'vitest';
import type { DeviceHolder } from '../../../lambda/ports/volume-store.js';
import { deviceClaims } from '../../../lambda/reconcile/pass/device-claims.js';
import { snapshot, T0 } from '../../core/builders.js';
import { FakeCluster, FakeStore, fakeDeps } from '../../support/fake-ports.js';

const INSTANCE = 'i-0123456789abcdef0';
const CANDIDATES = ['/dev/xvdaa', '/dev/xvdab', '/dev/xvdac'];
const ours = { volumeId: 'vol-1', instanceId: INSTANCE, operationId: 'op-ours', expiresAt: T0 + 60_000 };
const other = (operationId: string, expiresAt = T0 + 60_000): DeviceHolder => ({ volumeId: 'vol-2', operationId, expiresAt });

/** A store that counts its reads of the instance's reservations and its reservation writes. */
function claimsOver(held: Record<string, DeviceHolder>) {
  const store = new FakeStore();
  store.devices.set(INSTANCE, new Map(Object.entries(held)));
  let reads = 0;
  let writes = 0;
  const read = store.reservedDevices.bind(store);
  store.reservedDevices = (instanceId, now) => (reads++, read(instanceId, now));
  const reserve = store.reserveDevice.bind(store);
  store.reserveDevice = (...args) => (writes++, reserve(...args));
  const claims = deviceClaims({ deps: fakeDeps({ cluster: new FakeCluster(snapshot({})), store }) }, ours);
  return { store, claims, reads: () => reads, writes: () => writes };
}

describe('claiming a device name for an attach', () => {
  // After the blind first try, a name the read shows held by another operation is not even tried.
  it.each([
    ['nothing held: the first name, with one write and no read', {}, '/dev/xvdaa', 0, 1],
    ['the first name held by a live operation: the next free one, after one read', { '/dev/xvdaa': other('op-2') }, '/dev/xvdab', 1, 2],
    ['the first two held: the third', { '/dev/xvdaa': other('op-2'), '/dev/xvdab': other('op-3') }, '/dev/xvdac', 1, 2],
    ['a reservation that expired: taken over blind', { '/dev/xvdaa': other('op-2', T0) }, '/dev/xvdaa', 0, 1],
    ['already ours (a retried attach): kept', { '/dev/xvdaa': { ...other('op-ours'), volumeId: 'vol-1' } }, '/dev/xvdaa', 0, 1],
    ['every name held: none', Object.fromEntries(CANDIDATES.map((d, i) => [d, other(`op-${i}`)])), undefined, 1, 1],
  ])('%s', async (_case, held, expected, reads, writes) => {
    const { store, claims, reads: readCount, writes: writeCount } = claimsOver(held);

    expect(await claims.claim(CANDIDATES)).toBe(expected);

    expect(readCount()).toBe(reads);
    expect(writeCount()).toBe(writes);
    if (expected !== undefined) expect(store.devices.get(INSTANCE)?.get(expected)?.operationId).toBe('op-ours');
  });

  it('no candidate at all: nothing is read or written', async () => {
    const { store, claims, reads } = claimsOver({});
    expect(await claims.claim([])).toBeUndefined();
    expect(reads()).toBe(0);
    expect(store.devices.get(INSTANCE)?.size).toBe(0);
  });
});
