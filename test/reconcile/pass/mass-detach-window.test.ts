/** A full pass asks the shared mass-detach window before it detaches, and detaches nothing guarded when the window cannot be read. */
import { describe, expect, it } from 'vitest';
import type { ClaimRequest } from '../../../lambda/core/mass-detach-window.js';
import type { MassDetachWindow } from '../../../lambda/ports/mass-detach-window.js';
import { runFullPass } from '../../../lambda/reconcile/controller/full-pass.js';
import { attachment, node, pv, record, snapshot, T0, uname, vol } from '../../core/builders.js';
import { FakeBlockStorage, FakeCluster, FakeStore, fakeDeps } from '../../support/fake-ports.js';

const COUNT = 12;

/** COUNT volumes attached one per node, unmounted, wanted by no pod: a limit of 6 per pass. */
function harness(window: MassDetachWindow) {
  const store = new FakeStore();
  store.state = { version: 1, lastVerifiedAt: T0, seededAt: T0 };
  const ids = Array.from({ length: COUNT }, (_, i) => i + 1);
  for (const n of ids) store.items.set(vol(n), record(vol(n), [attachment(`node-${n}`, { reported: true })]));
  const cluster = new FakeCluster(
    snapshot({
      nodes: ids.map((n) => node(`node-${n}`, { attached: [{ name: uname(vol(n)), devicePath: '/dev/xvdaa' }] })),
      pvs: ids.map((n) => pv(`pv-${n}`, { volumeId: vol(n) })),
    }),
  );
  const ec2 = new FakeBlockStorage();
  const deps = fakeDeps({ cluster, store, blockStorage: ec2, massDetachWindow: window });
  return { ec2, pass: () => runFullPass(deps, { deadline: T0 + 60_000 }) };
}

const detachCalls = (ec2: FakeBlockStorage) => ec2.calls.filter((c) => c.startsWith('detach '));

describe('a full pass and the shared mass-detach window', () => {
  it.each([
    { name: 'the window grants all the pass may: 6 detach, 6 held back', granted: 6, detached: 6, heldBack: 6 },
    { name: 'overlapping passes spent part of it: 2 detach, 10 held back', granted: 2, detached: 2, heldBack: 10 },
    { name: 'spent: nothing detaches', granted: 0, detached: 0, heldBack: 12 },
  ])('$name', async ({ granted, detached, heldBack }) => {
    const asked: ClaimRequest[] = [];
    const { ec2, pass } = harness({ claim: (request) => (asked.push(request), Promise.resolve(granted)) });

    const report = await pass();

    expect(asked).toEqual([{ wanted: 6, limit: 6, windowMs: 300_000 }]);
    expect(detachCalls(ec2)).toHaveLength(detached);
    expect(report.heldBack).toHaveLength(heldBack);
  });

  it('a window that cannot be read grants nothing: the guard fails closed', async () => {
    const { ec2, pass } = harness({ claim: () => Promise.reject(new Error('ProvisionedThroughputExceededException')) });

    const report = await pass();

    expect(detachCalls(ec2)).toEqual([]);
    expect(report.heldBack).toHaveLength(COUNT);
    expect(report.converged).toBe(false);
  });
});
