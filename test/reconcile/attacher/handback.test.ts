import { describe, expect, it } from 'vitest';
import { stillActing } from '../../../lambda/core/attacher/handover.js';
import type { VolumeRecord } from '../../../lambda/core/types.js';
import type { LeaseLock } from '../../../lambda/ports/lease-lock.js';
import { handBack, releasedRecord, switchWrites, type HandbackStep } from '../../../lambda/reconcile/attacher/handback.js';
import { MemoryLease } from '../../../sandbox/lease-election.js';
import { MemoryHandover } from '../../support/memory-handover.js';

const S = 1000;
const US = 'ebs-attach-detach/prod';

const recordWith = (leaseExpiresAt: number): VolumeRecord =>
  ({
    volumeId: 'vol-0123456789abcdef0',
    operations: {
      volume: { id: 'op-1', kind: 'detach', nodeName: 'node-1', instanceId: 'i-0123456789abcdef0', startedAt: 0, leaseExpiresAt },
    },
  }) as unknown as VolumeRecord;

function rig(records: VolumeRecord[] = []) {
  let now = 100 * S;
  const handover = new MemoryHandover();
  const lock = new MemoryLease();
  const told: HandbackStep[] = [];
  const deps = {
    handover,
    store: { scan: () => Promise.resolve({ records: new Map(records.map((r) => [r.volumeId, r])), corrupt: [] }) },
    lease: { lock: lock as LeaseLock, identity: US },
    now: () => now,
    sleep: (ms: number) => Promise.resolve(void (now += ms)),
    tell: (step: HandbackStep) => told.push(step),
  };
  return { deps, handover, lock, told, at: () => now };
}

describe('what may still act', () => {
  it('registered passes not yet past their end, and operations under a live lease; the latest end of them all', () => {
    const acting = stillActing({ passes: { a: 90 * S, b: 130 * S, c: 110 * S } }, [recordWith(120 * S), recordWith(99 * S)], 100 * S);
    expect(acting).toEqual({
      passes: [
        { passId: 'c', until: 110 * S },
        { passId: 'b', until: 130 * S },
      ],
      operations: [{ volumeId: 'vol-0123456789abcdef0', nodeName: 'node-1', kind: 'detach', until: 120 * S }],
      until: 130 * S,
    });
    expect(stillActing({ passes: {} }, [], 100 * S).until).toBe(100 * S);
  });
});

describe('the handback', () => {
  it('turns writes off, waits out passes and operation leases, then releases our Lease as client-go does and forgets it held it', async () => {
    const r = rig([recordWith(107 * S)]);
    await r.lock.create({ holderIdentity: US, leaseDurationSeconds: 180, acquireTime: 0, renewTime: 90 * S, leaseTransitions: 2 });
    r.handover.state = { ...r.handover.state, version: 3, heldSince: 0, passes: { p: 103 * S } };

    const steps = await handBack(r.deps);

    expect(steps.map((s) => s.step)).toEqual(['writes-off', 'waiting', 'waiting', 'waiting', 'waiting', 'quiet', 'released']);
    expect(r.at()).toBe(107 * S);
    expect(await r.lock.get()).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 2 });
    expect(r.handover.state).toMatchObject({ writes: 'off', writesChange: { at: 100 * S, by: 'handback' } });
    expect(r.handover.state.heldSince).toBeUndefined();
  });

  it('releases nothing it does not hold, and nothing when the fence is off', async () => {
    const r = rig();
    await r.lock.create({
      holderIdentity: 'ebs-csi-controller-0',
      leaseDurationSeconds: 15,
      acquireTime: 0,
      renewTime: 0,
      leaseTransitions: 0,
    });
    expect((await handBack(r.deps)).at(-1)).toEqual({
      step: 'not-released',
      why: `the Lease is held by ebs-csi-controller-0, not by us (${US})`,
    });
    const { lease: _lease, ...noFence } = rig().deps;
    expect((await handBack(noFence)).at(-1)).toMatchObject({ step: 'not-released', why: expect.stringMatching(/fence is off/) as unknown });
  });

  it('a Lease that changed under the release is left alone: run the handback again', async () => {
    const r = rig();
    await r.lock.create({ holderIdentity: US, leaseDurationSeconds: 180, acquireTime: 0, renewTime: 0, leaseTransitions: 0 });
    const racing: LeaseLock = {
      ...r.lock,
      get: () => r.lock.get(),
      create: (s) => r.lock.create(s),
      update: () => Promise.resolve('conflict'),
    };
    expect((await handBack({ ...r.deps, lease: { lock: racing, identity: US } })).at(-1)).toMatchObject({
      step: 'not-released',
      why: 'the Lease changed while we released it: run the handback again',
    });
  });

  it('a takeover turns writes on and forgets the Lease held and the record seen before', async () => {
    const r = rig();
    r.handover.state = { ...r.handover.state, writes: 'off', heldSince: 5, observation: { resourceVersion: '9', seenAt: 1 } };
    expect(await switchWrites(r.handover, 'on', 200 * S, 'takeover')).toMatchObject({ already: false, state: { writes: 'on' } });
    expect(r.handover.state.heldSince).toBeUndefined();
    expect(r.handover.state.observation).toBeUndefined();
    expect((await switchWrites(r.handover, 'on', 201 * S, 'takeover')).already).toBe(true);
  });

  it("client-go's release keeps the transitions and empties the holder", () => {
    expect(releasedRecord({ resourceVersion: '3', holderIdentity: US, leaseTransitions: 4 }, 7)).toEqual({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: 7,
      renewTime: 7,
      leaseTransitions: 4,
    });
  });
});
