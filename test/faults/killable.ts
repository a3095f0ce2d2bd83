/**
 * A pass that dies: its ports count every call, and at call number `atCall` the invocation
 * "is killed" — either just before the call goes out or just after its effect happened — and
 * from then on nothing it started ever comes back. Nothing else of the pass runs: as with a
 * Lambda that times out or runs out of memory, whatever it wrote so far is all that remains.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Ports } from '../../lambda/composition.js';

export interface Kill {
  atCall: number;
  /** True: the call's effect happens (e.g. EC2 received AttachVolume), then the pass dies. */
  afterEffect: boolean;
  /** Set: killed at the first call of this port method (e.g. `attach`) instead of at call `atCall`. */
  method?: string;
}

export interface Killable {
  ports: Ports;
  /** Settles when the pass has been killed (never, if it finished first). */
  killed: Promise<void>;
  calls(): number;
  /**
   * The pass returned: Lambda freezes its environment, so work it left running (a sibling of a
   * rejected Promise.all) starts no new port call; a call already under way goes on.
   */
  freeze(): void;
}

const never = new Promise<never>(() => undefined);

/**
 * Set while the fatal call's own effect runs: a port call may itself call other ports (an attach
 * claims its device name in the store), and those belong to the effect, which must be able to
 * finish. Everything else the pass starts after the kill never comes back.
 */
const inFatalEffect = new AsyncLocalStorage<true>();

export function killable(ports: Ports, kill: Kill | undefined): Killable {
  let calls = 0;
  let dead = false;
  let announce: () => void = () => undefined;
  const killed = new Promise<void>((resolve) => (announce = resolve));
  const wrap = <T extends object>(port: T): T =>
    new Proxy(port, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (inFatalEffect.getStore() === true) return (value as (...a: unknown[]) => unknown).apply(target, args);
          if (dead) return never;
          calls += 1;
          const fatal = kill !== undefined && (kill.method === undefined ? calls === kill.atCall : property === kill.method);
          if (!fatal) return (value as (...a: unknown[]) => unknown).apply(target, args);
          dead = true;
          if (!kill.afterEffect) {
            announce();
            return never;
          }
          const effect = inFatalEffect.run(true, () => (value as (...a: unknown[]) => unknown).apply(target, args));
          // Dead once the effect landed (or failed): the caller never hears back.
          return Promise.resolve(effect)
            .then(announce, announce)
            .then(() => never);
        };
      },
    });
  return {
    ports: {
      // The handover's ports pass through as they are: passes reach the handover record through the composition root.
      ...ports,
      cluster: wrap(ports.cluster),
      store: wrap(ports.store),
      blockStorage: wrap(ports.blockStorage),
      watchers: wrap(ports.watchers),
      ...(ports.massDetachWindow === undefined ? {} : { massDetachWindow: wrap(ports.massDetachWindow) }),
    },
    killed,
    calls: () => calls,
    freeze: () => void (dead = true),
  };
}
