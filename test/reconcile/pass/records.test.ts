import { describe, expect, it } from 'vitest';
import { onRecord, removeIfEmpty, writeRecord, type Step } from '../../../lambda/reconcile/pass/records.js';
import type { VolumeRecord } from '../../../lambda/core/types.js';
import { actualOf, attachment, op, record, T0, vol } from '../../core/builders.js';
import { FakeStore } from '../../support/fake-ports.js';

const V = vol(1);

/** A store holding `stored`, counting the pass's puts. */
function storeWith(stored?: VolumeRecord) {
  const store = new FakeStore();
  if (stored !== undefined) store.items.set(stored.volumeId, structuredClone(stored));
  const puts = { count: 0 };
  store.beforePut = () => puts.count++;
  return { store, puts };
}

/** The step under test: the pass attaches the volume to node-c. */
const attachToC: Step = onRecord((r) => ({
  ok: true,
  record: { ...r, attachments: { ...r.attachments, 'node-c': attachment('node-c') } },
}));

describe('writing a volume record', () => {
  it("stores the step's record and keeps the pass's view in step with the store", async () => {
    const before = record(V, [attachment('node-a')]);
    const { store } = storeWith(before);
    const actual = actualOf(before);

    const written = await writeRecord(store, actual, V, before, attachToC);

    expect(written).toMatchObject({ ok: true, record: { version: 2 } });
    expect(Object.keys(store.items.get(V)!.attachments)).toEqual(['node-a', 'node-c']);
    expect(actual.get(V)).toEqual(store.items.get(V));
  });

  it('writes nothing when the step leaves the record as it is', async () => {
    const before = record(V, [attachment('node-a')]);
    const { store, puts } = storeWith(before);

    const written = await writeRecord(store, actualOf(before), V, before, (r) => ({ ok: true, record: r! }));

    expect(written).toEqual({ ok: true, record: before });
    expect(puts.count).toBe(0);
  });

  it('writes nothing when the step refuses, and says why', async () => {
    const { store, puts } = storeWith();

    const written = await writeRecord(store, new Map(), V, undefined, attachToC);

    expect(written).toEqual({ ok: false, why: 'refused', refused: 'not-holder', reason: 'the volume record is gone' });
    expect(puts.count).toBe(0);
  });

  it('on a conflict, re-reads the record and re-applies the step to the fresh copy', async () => {
    const before = record(V, [attachment('node-a')]);
    const { store, puts } = storeWith(before);
    const actual = actualOf(before);
    store.beforePut = () => {
      if (puts.count++ === 0) store.items.set(V, { ...record(V, [attachment('node-a'), attachment('node-b')]), version: 2 });
    };

    const written = await writeRecord(store, actual, V, before, attachToC);

    expect(written).toMatchObject({ ok: true, record: { version: 3 } });
    expect(Object.keys(store.items.get(V)!.attachments)).toEqual(['node-a', 'node-b', 'node-c']);
    expect(actual.get(V)).toEqual(store.items.get(V));
    expect(puts.count).toBe(2);
  });

  it('a record deleted underneath is dropped from the view, and a step that needs it refuses', async () => {
    const before = record(V, [attachment('node-a')]);
    const { store, puts } = storeWith(before);
    const actual = actualOf(before);
    store.beforePut = () => {
      puts.count++;
      store.items.delete(V);
    };

    const written = await writeRecord(store, actual, V, before, attachToC);

    expect(written).toMatchObject({ ok: false, why: 'refused', reason: 'the volume record is gone' });
    expect(actual.has(V)).toBe(false);
    expect(puts.count).toBe(1);
  });

  it.each([
    ['three attempts unless told', undefined, 3],
    ['as many as asked', 1, 1],
  ])('gives up on a record that keeps changing after %s', async (_case, attempts, expectedPuts) => {
    const before = record(V, [attachment('node-a')]);
    const { store, puts } = storeWith(before);
    store.beforePut = () => {
      const stored = store.items.get(V)!;
      store.items.set(V, { ...stored, version: stored.version + 1 });
      puts.count++;
    };

    const written = await writeRecord(store, actualOf(before), V, before, attachToC, attempts === undefined ? {} : { attempts });

    expect(written).toEqual({ ok: false, why: 'conflict', reason: `${V} kept changing underneath this pass` });
    expect(puts.count).toBe(expectedPuts);
  });
});

describe('removing a record with nothing left worth keeping', () => {
  const empty = (o: Partial<VolumeRecord> = {}): VolumeRecord => ({ ...record(V, []), ...o });
  const expiredBackoff = { 'attach:node-a': { failures: 1, notBefore: T0, lastError: 'boom' } };

  it.each([
    ['an empty record is removed', empty(), undefined, undefined, false],
    ['a record with an attachment stays', record(V, [attachment('node-a')]), undefined, undefined, true],
    ['a record with an operation stays', empty({ operations: { 'node-a': op('attach', 'node-a') } }), undefined, undefined, true],
    ['a backoff no longer in force does not keep it', empty({ backoff: expiredBackoff }), T0, undefined, false],
    ['without the time, any backoff keeps it', empty({ backoff: expiredBackoff }), undefined, undefined, true],
    ['a record another pass wrote meanwhile stays', empty(), undefined, 2, true],
  ])('%s', async (_case, stored, now, versionMeanwhile, kept) => {
    const { store } = storeWith(versionMeanwhile === undefined ? stored : { ...stored, version: versionMeanwhile });
    const actual = actualOf(stored);

    await removeIfEmpty(store, actual, stored, now);

    expect([store.items.has(V), actual.has(V)]).toEqual([kept, kept]);
  });
});
