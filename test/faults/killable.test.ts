/** The fault suite's killed invocation: what it lets through, and when it announces its death. */
import { describe, expect, it } from 'vitest';
import type { Ports } from '../../lambda/composition.js';
import { killable, type Killable } from './killable.js';

/** An attach that claims its device name in the store first, as the real executor's does. */
function dyingAttach(log: string[]): Killable {
  const store = { reservedDevices: () => (log.push('store.reservedDevices'), Promise.resolve(new Map())) };
  const blockStorage = {
    attach: async () => {
      log.push('attach: claims a device');
      await dying.ports.store.reservedDevices('i-1', 0);
      log.push('attach: sent');
      return { kind: 'started' };
    },
  };
  const dying = killable({ cluster: {}, store, blockStorage, watchers: {} } as unknown as Ports, { atCall: 1, afterEffect: true });
  return dying;
}

describe('killable', () => {
  it('a kill after the effect lets the fatal call finish its own nested calls, then announces the death', async () => {
    const log: string[] = [];
    const dying = dyingAttach(log);
    void dying.ports.blockStorage.attach({} as never);

    await dying.killed;

    expect(log).toEqual(['attach: claims a device', 'store.reservedDevices', 'attach: sent']);
  });

  it('after the death, a call the pass starts elsewhere never comes back', async () => {
    const dying = dyingAttach([]);
    void dying.ports.blockStorage.attach({} as never);
    await dying.killed;

    const late = dying.ports.store.reservedDevices('i-1', 0).then(() => 'answered');
    const silence = new Promise((resolve) => setImmediate(() => resolve('silent')));
    expect(await Promise.race([late, silence])).toBe('silent');
  });
});

describe('a frozen invocation (its pass returned)', () => {
  it('lets a call under way finish and starts no new one', async () => {
    let release: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const seen: string[] = [];
    const ports = {
      cluster: {},
      store: { put: (what: string) => (seen.push(what), what === 'slow' ? slow.then(() => what) : Promise.resolve(what)) },
      blockStorage: {},
      watchers: {},
    } as unknown as Ports;
    const frozen = killable(ports, undefined);
    const store = frozen.ports.store as unknown as { put(what: string): Promise<string> };
    const underWay = store.put('slow');
    frozen.freeze();
    let later = 'not answered';
    void store.put('later').then((answer) => (later = answer));
    release();
    expect(await underWay).toBe('slow');
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['slow']);
    expect(later).toBe('not answered');
  });
});
