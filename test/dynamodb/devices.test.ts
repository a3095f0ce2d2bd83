/**
 * Device reservations per instance, shared by every invocation through the table: one
 * conditional write per name, so concurrent stores on separate clients never both win a name.
 */
import { describe, expect, it } from 'vitest';
import { useLocalDynamo } from '../support/local-dynamo.js';
import { T0 } from './builders.js';

const local = useLocalDynamo();
const holder = (operationId: string, expiresAt = T0 + 60_000) => ({ volumeId: `vol-${operationId}`, operationId, expiresAt });

describe('reserving a device name on an instance', () => {
  it('20 invocations (separate clients) race for one name: exactly one wins', async () => {
    const { otherStore } = await local.freshTable();
    const stores = Array.from({ length: 20 }, () => otherStore());
    const won = await Promise.all(stores.map((s, i) => s.reserveDevice('i-1', '/dev/xvdaa', holder(`op-${i}`), T0)));
    expect(won.filter(Boolean)).toHaveLength(1);
    const held = await stores[0]!.reservedDevices('i-1', T0);
    expect([...held.keys()]).toEqual(['/dev/xvdaa']);
    expect(held.get('/dev/xvdaa')?.operationId).toBe(`op-${won.indexOf(true)}`);
  });

  it.each([
    ['a free name', undefined, T0, true],
    ['a name whose holder’s lease has ended', holder('old', T0), T0, true],
    ['a name another live operation holds', holder('other'), T0, false],
    ['a name the same operation holds (idempotent)', holder('mine'), T0, true],
  ])('%s: reserved = %s', async (_name, existing, now, expected) => {
    const { store } = await local.freshTable();
    if (existing) await store.reserveDevice('i-1', '/dev/xvdaa', existing, T0 - 1);
    expect(await store.reserveDevice('i-1', '/dev/xvdaa', holder('mine'), now)).toBe(expected);
  });

  it('names of other instances are independent; expired reservations are not reported', async () => {
    const { store } = await local.freshTable();
    await store.reserveDevice('i-1', '/dev/xvdaa', holder('a', T0 + 10), T0);
    await store.reserveDevice('i-2', '/dev/xvdaa', holder('b'), T0);
    expect([...(await store.reservedDevices('i-1', T0 + 10)).keys()]).toEqual([]);
    expect([...(await store.reservedDevices('i-2', T0 + 10)).keys()]).toEqual(['/dev/xvdaa']);
  });

  it('a release frees the name only for its own operation; takeFrom hands a name over', async () => {
    const { store } = await local.freshTable();
    await store.reserveDevice('i-1', '/dev/xvdaa', holder('a'), T0);
    await store.releaseDevice('i-1', '/dev/xvdaa', 'someone-else');
    expect((await store.reservedDevices('i-1', T0)).get('/dev/xvdaa')?.operationId).toBe('a');
    expect(await store.reserveDevice('i-1', '/dev/xvdaa', holder('in-use', T0 + 3_600_000), T0, 'a')).toBe(true);
    await store.releaseDevice('i-1', '/dev/xvdaa', 'a');
    expect((await store.reservedDevices('i-1', T0)).get('/dev/xvdaa')?.operationId).toBe('in-use');
  });

  it('instance items are not volume records: a scan neither returns nor reports them', async () => {
    const { store } = await local.freshTable();
    await store.reserveDevice('i-1', '/dev/xvdaa', holder('a'), T0);
    expect(await store.scan()).toEqual({ records: new Map(), corrupt: [] });
  });
});
