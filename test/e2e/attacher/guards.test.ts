/**
 * Two guards of attacher mode in the situations they exist for, through the real composition and
 * the local stack (scripts/planted-bugs.ts removes each; these tests then fail):
 * - the per-call lease check: the sidecar takes the Lease between a pass's start and its
 *   AttachVolume, so the call must not go out;
 * - a deleting VolumeAttachment with our finalizer and no record of ours while EC2 still holds the
 *   volume: the finalizer stays until EC2 has detached it (invariant A3).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ATTACHER_FINALIZER } from '../../../lambda/core/attacher/names.js';
import type { VolumeStore } from '../../../lambda/ports/volume-store.js';
import { RunningClock } from '../../../sandbox/clock.js';
import { MemoryLease, SidecarElector, sidecarOnKube } from '../../../sandbox/lease-election.js';
import { createSidecar } from '../../../sandbox/sidecar/sidecar.js';
import { startWorld, type World } from '../../../sandbox/world.js';
import { kcmPlayer, type KcmPlayer } from './kcm-player.js';

const S = 1000;

let world: World;
let kcm: KcmPlayer;
const budget = () => ({ deadline: world.clock.now() + 60 * S });
const calls = (action: string) => world.ec2.counters().calls[action] ?? 0;
/** The store with its `put` replaced (a class instance: its other methods keep their `this`). */
function withPut(store: VolumeStore, put: VolumeStore['put']): VolumeStore {
  return new Proxy(store, {
    get: (target, key) => {
      if (key === 'put') return put;
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const ec2Shows = async (volumeId: string) => {
  const described = await world.controller.ports.blockStorage.describeVolumes([volumeId]);
  return (described.get(volumeId)?.attachments ?? []).filter((a) => a.state !== 'detached').map((a) => a.instanceId);
};

describe('the per-call lease check: the sidecar takes the Lease while a pass is under way', () => {
  let election: ReturnType<typeof sidecarOnKube>;
  beforeEach(async () => {
    world = await startWorld({ nodes: 2, clock: new RunningClock(), mode: 'attacher', sidecar: true, env: { LEASE_FENCE: 'on' } });
    kcm = kcmPlayer(world);
    election = sidecarOnKube(world.kube.kubeconfigPath, world.clock);
    // The takeover: the sidecar led once and stopped; our passes took the Lease.
    await election.elector.tick();
    await world.controller.fullPass(budget());
    world.clock.advance(16 * S);
    expect((await world.controller.fullPass(budget())).fence).toEqual({ state: 'held' });
  });
  afterEach(async () => {
    await election.close();
    await kcm.close();
    await world.stop();
  });

  it('no AttachVolume goes out once the Lease is lost between the pass start and the call', async () => {
    const volume = await world.createVolume();
    const name = await kcm.attach(volume, 'node-1');
    let lost = false;
    // Right after the attach's intent is written (the pass already holds the Lease): a rollback by
    // hand deletes it, the sidecar's standby takes a fresh one, and time passes the re-read bound.
    const invocation = world.invocation({
      wrapPorts: (ports) => ({
        ...ports,
        store: withPut(ports.store, async (next, fence) => {
          const written = await ports.store.put(next, fence);
          if (!lost && Object.values(next.operations).some((op) => op.kind === 'attach')) {
            lost = true;
            await election.deleteLease();
            expect(await election.elector.tick()).toBe(true);
            world.clock.advance(6 * S);
          }
          return written;
        }),
      }),
    });

    const report = await invocation.fullPass(budget());

    expect(lost).toBe(true);
    expect(calls('AttachVolume')).toBe(0);
    expect(report.results).toContainEqual(
      expect.objectContaining({ kind: 'attach', outcome: 'failed', detail: expect.stringMatching(/csi-attacher lease/) as unknown }),
    );
    expect(kcm.va(name)?.status?.attached).not.toBe(true);
  });
});

describe('a deleting VolumeAttachment with our finalizer and no record while EC2 still holds the volume', () => {
  beforeEach(async () => {
    world = await startWorld({ nodes: 2, clock: new RunningClock(), mode: 'attacher' });
    kcm = kcmPlayer(world);
  });
  afterEach(async () => {
    await kcm.close();
    await world.stop();
  });

  it('keeps the finalizer until EC2 has detached the volume, then lets it go', async () => {
    const volume = await world.createVolume();
    const name = await kcm.attach(volume, 'node-1');
    // The sidecar attached it and stopped; kcm deletes the object.
    const sidecar = createSidecar({
      kube: world.kube,
      ec2: world.ec2Client,
      elector: new SidecarElector(new MemoryLease(), 'ebs-csi-controller-0', () => world.clock.now()),
    });
    for (let step = 0; step < 5 && kcm.va(name)?.status?.attached !== true; step++) {
      await sidecar.step();
      world.clock.advance(1 * S);
    }
    await kcm.detach(name);
    // A pass that cannot write what EC2 says of this volume (its writes keep conflicting): no record of ours.
    const stuck = world.invocation({
      wrapPorts: (ports) => ({
        ...ports,
        store: withPut(ports.store, (next, fence) =>
          next.volumeId === volume.volumeId ? Promise.resolve({ ok: false, reason: 'conflict' }) : ports.store.put(next, fence),
        ),
      }),
    });

    await stuck.fullPass(budget());

    expect(await ec2Shows(volume.volumeId)).toEqual([world.nodes[0]!.instanceId]);
    expect(kcm.va(name)?.metadata.finalizers).toEqual([ATTACHER_FINALIZER]);

    // The next pass records EC2's word and detaches first; only then does the object go.
    await world.controller.fullPass(budget());
    await world.controller.fullPass(budget());
    expect(await ec2Shows(volume.volumeId)).toEqual([]);
    expect(kcm.va(name)).toBeUndefined();
    expect(calls('DetachVolume')).toBe(1);
  });
});
