import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF } from '../../lambda/core/backoff.js';
import { InvalidWriteError } from '../../lambda/adapters/dynamodb/volume-store.js';
import {
  beginOperation,
  completeAttach,
  completeDetach,
  expiredOperations,
  failOperation,
  resolveExpired,
  takeOver,
} from '../../lambda/core/transitions.js';
import type { VolumeRecord } from '../../lambda/core/types.js';
import type { VolumeStore } from '../../lambda/ports/volume-store.js';
import { useLocalDynamo } from '../support/local-dynamo.js';
import {
  accepted,
  attachedRecord,
  attachInput,
  held,
  LEASE,
  pausedBeforeFirstPut,
  stored,
  T0,
  takeOperation,
  volumeId,
  type Outcome,
} from './builders.js';

const local = useLocalDynamo();
const emptyRecord = (vol: string): VolumeRecord => ({ ...attachedRecord(vol, 'x', 0), attachments: {} });
const opId = (record: VolumeRecord) => Object.values(record.operations)[0]?.id ?? 'none';

describe('taking an operation is one compare-and-swap', () => {
  it.each([
    ['a volume never stored', false],
    ['a stored volume', true],
  ])('20 concurrent attempts on %s: exactly one wins, the others see a conflict and then the lock', async (_name, isStored) => {
    const { store, otherStore } = await local.freshTable();
    const vol = volumeId(1);
    const read = isStored ? stored(await store.put(attachedRecord(vol, 'a', 0))) : undefined;
    const kind = isStored ? 'detach' : 'attach';
    // Every contender read the same version and decided to take the lock.
    const contenders = Array.from({ length: 20 }, (_, i) => ({
      store: otherStore(),
      input: attachInput(vol, 'a', { kind, operationId: `op-${i}` }),
    }));
    const results = await Promise.all(contenders.map(({ store: s, input }) => s.put(accepted(beginOperation(read, input, T0, LEASE)))));

    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toEqual(Array(19).fill({ ok: false, reason: 'conflict' }));
    const winner = results.findIndex((r) => r.ok);
    expect((await store.get(vol))?.operations.volume?.id).toBe(`op-${winner}`);
    const loser = contenders[(winner + 1) % 20]!;
    expect(await takeOperation(loser.store, loser.input, T0)).toEqual({ won: false, refused: 'locked' });
  });

  it('two invocations racing to attach an exclusive volume to two nodes: exactly one attachment results', async () => {
    const { store, otherStore } = await local.freshTable();
    const [first, second] = [otherStore(), otherStore()];
    const volumes = Array.from({ length: 25 }, (_, i) => volumeId(100 + i));
    await Promise.all(
      volumes.map(async (vol) => {
        const attempts = await Promise.all([
          takeOperation(first, attachInput(vol, 'node-a'), T0),
          takeOperation(second, attachInput(vol, 'node-b'), T0),
        ]);
        const won = attempts.filter((a) => a.won);
        expect(won).toHaveLength(1);
        const winner = won[0]!.record;
        const done = await store.put(accepted(completeAttach(winner, opId(winner), '/dev/xvdaa', T0 + 1)), {
          lockKey: 'volume',
          operationId: opId(winner),
        });
        expect(done.ok).toBe(true);
        // The loser, trying again after the winner finished, is told why it may not attach.
        const loser = attempts.findIndex((a) => !a.won);
        const again = await takeOperation([first, second][loser]!, attachInput(vol, loser === 0 ? 'node-a' : 'node-b'), T0 + 2);
        expect(again).toEqual({ won: false, refused: 'multi-attach' });
      }),
    );
    const { records } = await store.scan();
    expect([...records.values()].map((r) => Object.keys(r.attachments).length)).toEqual(Array(25).fill(1));
  });
});

describe('leases and fencing', () => {
  it("an expired lease is taken over; the old holder's completion is rejected and leaves the item untouched", async () => {
    const { store, otherStore } = await local.freshTable();
    const [oldHolder, newHolder] = [otherStore(), otherStore()];
    const vol = volumeId(2);
    const taken = await takeOperation(oldHolder, attachInput(vol, 'a', { operationId: 'op-old' }), T0);
    const stale = held(taken);

    const later = T0 + LEASE;
    const current = (await newHolder.get(vol))!;
    expect(expiredOperations(current, later).map((op) => op.id)).toEqual(['op-old']);
    const tookOver = await newHolder.put(accepted(takeOver(current, 'op-old', 'op-new', later, LEASE)), {
      lockKey: 'volume',
      operationId: 'op-old',
    });
    expect(tookOver.ok).toBe(true);
    const afterTakeover = await store.get(vol);

    // From its stale read, the old holder's write fails on the version.
    const late = await oldHolder.put(accepted(completeAttach(stale, 'op-old', '/dev/xvdaa', later + 1)), {
      lockKey: 'volume',
      operationId: 'op-old',
    });
    expect(late).toEqual({ ok: false, reason: 'conflict' });
    // Even with the current version, the fence on the operation id rejects it.
    const forged = accepted(
      completeAttach(
        { ...afterTakeover!, operations: { volume: { ...afterTakeover!.operations.volume!, id: 'op-old' } } },
        'op-old',
        '/dev/xvdaa',
        later + 1,
      ),
    );
    expect(await oldHolder.put(forged, { lockKey: 'volume', operationId: 'op-old' })).toEqual({ ok: false, reason: 'conflict' });
    // Re-reading, it learns it no longer holds the lock.
    expect(completeAttach((await oldHolder.get(vol))!, 'op-old', '/dev/xvdaa', later + 1)).toMatchObject({
      ok: false,
      refused: 'not-holder',
    });
    expect(await store.get(vol)).toEqual(afterTakeover);

    const finished = await newHolder.put(accepted(completeAttach(afterTakeover!, 'op-new', '/dev/xvdab', later + 2)), {
      lockKey: 'volume',
      operationId: 'op-new',
    });
    expect(finished.ok && finished.record.attachments.a?.state).toBe('attached');
  });

  it('an expired operation listed by a scan is resolved against EC2 under its fence', async () => {
    const { store } = await local.freshTable();
    const [expiring, live] = [volumeId(3), volumeId(4)];
    await takeOperation(store, attachInput(expiring, 'a', { operationId: 'op-crashed' }), T0);
    await takeOperation(store, attachInput(live, 'a'), T0 + LEASE);
    const now = T0 + LEASE;
    const { records } = await store.scan();
    const expired = [...records.values()].flatMap((r) => expiredOperations(r, now).map((op) => ({ record: r, op })));
    expect(expired.map(({ op }) => op.id)).toEqual(['op-crashed']);
    const { record, op } = expired[0]!;
    const resolved = accepted(
      resolveExpired(record, op.id, { instanceId: 'i-a', state: 'attached', device: '/dev/xvdaa' }, now, DEFAULT_BACKOFF),
    );
    const written = await store.put(resolved, { lockKey: 'volume', operationId: op.id });
    expect(written.ok && written.record).toMatchObject({ operations: {}, attachments: { a: { state: 'attached' } } });
  });
});

describe('backoff across invocations', () => {
  it('a failure written by one store instance blocks another until its time has passed', async () => {
    const { store, otherStore } = await local.freshTable();
    const vol = volumeId(5);
    const taken = await takeOperation(store, attachInput(vol, 'a', { operationId: 'op-1' }), T0);
    const failedAt = T0 + 10;
    const failed = accepted(failOperation(held(taken), 'op-1', 'AttachmentLimitExceeded', failedAt, { initialMs: 500, maxMs: 10_000 }));
    expect((await store.put(failed, { lockKey: 'volume', operationId: 'op-1' })).ok).toBe(true);

    const nextInvocation = otherStore();
    expect(await takeOperation(nextInvocation, attachInput(vol, 'a'), failedAt + 499)).toEqual({ won: false, refused: 'backoff' });
    const after = await takeOperation(nextInvocation, attachInput(vol, 'a'), failedAt + 500);
    expect(after.won).toBe(true);
  });
});

describe('removing an empty volume', () => {
  type Interleaving = (
    remove: () => Promise<unknown>,
    attach: (store: VolumeStore) => Promise<Outcome>,
    store: VolumeStore,
  ) => Promise<Outcome>;
  it.each<[string, Interleaving]>([
    ['removal before the attach reads', async (remove, attach, store) => (await remove(), attach(store))],
    [
      "removal between the attach's read and its write",
      async (remove, attach, store) => {
        const paused = pausedBeforeFirstPut(store);
        const attaching = attach(paused.store);
        await paused.atPut;
        await remove();
        paused.release();
        return attaching;
      },
    ],
    [
      'removal after the attach wrote',
      async (remove, attach, store) => {
        const outcome = await attach(store);
        await remove();
        return outcome;
      },
    ],
    ['removal and attach sent at once', async (remove, attach, store) => (await Promise.all([remove(), attach(store)]))[1]],
  ])('never loses an attach that races it: %s', async (_name, interleave) => {
    const { store, otherStore } = await local.freshTable();
    const [remover, attacher] = [otherStore(), otherStore()];
    const vol = volumeId(200);
    const empty = stored(await store.put(emptyRecord(vol)));
    const outcome = await interleave(
      () => remover.remove(empty),
      (s) => takeOperation(s, attachInput(vol, 'a'), T0),
      attacher,
    );
    expect(outcome.won).toBe(true);
    expect((await store.get(vol))?.attachments.a?.state).toBe('attaching');
  });

  it('an attach decided before the removal re-decides and recreates the item with a later version', async () => {
    const { store } = await local.freshTable();
    const vol = volumeId(6);
    const read = stored(await store.put(emptyRecord(vol)));
    const decided = accepted(beginOperation(read, attachInput(vol, 'a'), T0, LEASE));
    expect(await store.remove(read)).toEqual({ ok: true });
    expect(await store.get(vol)).toBeUndefined();
    expect(await store.put(decided)).toEqual({ ok: false, reason: 'conflict' });
    const retried = await takeOperation(store, attachInput(vol, 'a'), T0);
    expect(retried.won && retried.record.version).toBe(3);
  });

  it('a writer holding a version from before the removal cannot match the recreated item', async () => {
    const { store } = await local.freshTable();
    const vol = volumeId(7);
    const read = stored(await store.put(emptyRecord(vol)));
    await store.remove(read);
    const recreated = await takeOperation(store, attachInput(vol, 'b'), T0);
    expect(recreated.won).toBe(true);
    const stale = accepted(beginOperation(read, attachInput(vol, 'a'), T0, LEASE));
    expect(await store.put(stale)).toEqual({ ok: false, reason: 'conflict' });
    expect(Object.keys((await store.get(vol))!.attachments)).toEqual(['b']);
  });

  it('refuses to remove a record that still holds an attachment; a record never stored needs nothing', async () => {
    const { store } = await local.freshTable();
    await expect(store.remove(attachedRecord(volumeId(9), 'a'))).rejects.toThrow(InvalidWriteError);
    expect(await store.remove(emptyRecord(volumeId(9)))).toEqual({ ok: true });
  });

  it('a detach completed by its holder leaves a record that can be removed', async () => {
    const { store } = await local.freshTable();
    const vol = volumeId(10);
    await store.put(attachedRecord(vol, 'a', 0));
    const detach = await takeOperation(store, attachInput(vol, 'a', { kind: 'detach', operationId: 'op-d' }), T0);
    const done = await store.put(accepted(completeDetach(held(detach), 'op-d', T0 + 1)), { lockKey: 'volume', operationId: 'op-d' });
    expect(done.ok).toBe(true);
    expect(await store.remove(stored(done))).toEqual({ ok: true });
    expect((await store.scan()).records.size).toBe(0);
  });
});
