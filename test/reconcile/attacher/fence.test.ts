import { describe, expect, it } from 'vitest';
import type { WhenAbsent } from '../../../lambda/core/lease-fence.js';
import type { BlockStorage } from '../../../lambda/ports/block-storage.js';
import { fencedBlockStorage, LeaseFence } from '../../../lambda/reconcile/attacher/fence.js';
import { underHandover } from '../../../lambda/reconcile/attacher/handover.js';
import type { PassOptions, PassReport } from '../../../lambda/reconcile/pass/types.js';
import { MemoryLease, SidecarElector } from '../../../sandbox/lease-election.js';
import { MemoryHandover } from '../../support/memory-handover.js';

const S = 1000;
const US = 'ebs-attach-detach';
const SIDECAR = 'ebs-csi-controller-0';

/** One lease, one handover record, the sidecar's elector and our fences on one manual clock (no real time passes). */
function rig(whenAbsent: WhenAbsent = 'create') {
  let now = 0;
  const lease = new MemoryLease();
  const store = new MemoryHandover();
  const sidecar = new SidecarElector(lease, SIDECAR, () => now);
  /** A fence of a fresh execution environment: it remembers nothing, the store everything. */
  const coldFence = () =>
    new LeaseFence({ lock: lease, store, identity: US, durationSeconds: 180, rereadMs: 5 * S, whenAbsent, now: () => now });
  const fence = coldFence();
  const advance = (ms: number) => (now += ms);
  /** The sidecar's retry loop for `ms`: one attempt per 5 s retry period. */
  const sidecarRuns = async (ms: number) => {
    let leads = false;
    for (let t = 0; t < ms; t += 5 * S) {
      leads = await sidecar.tick();
      advance(5 * S);
    }
    return leads;
  };
  return { lease, store, sidecar, fence, coldFence, advance, sidecarRuns };
}

const calls: string[] = [];
const ec2 = {
  attach: () => (calls.push('attach'), Promise.resolve({ kind: 'started', device: '/dev/xvdaa' })),
  detach: () => (calls.push('detach'), Promise.resolve({ kind: 'started' })),
} as unknown as BlockStorage;
const attachRequest = {} as Parameters<BlockStorage['attach']>[0];
const detachRequest = {} as Parameters<BlockStorage['detach']>[0];

describe('the lease fence against the sidecar’s leader election', () => {
  it("never takes the sidecar's live lease", async () => {
    const { fence, sidecarRuns, lease } = rig();
    expect(await sidecarRuns(5 * S)).toBe(true);
    expect(await fence.acquireOrRenew()).toMatchObject({ held: false, state: 'waiting', holder: SIDECAR });
    expect(await sidecarRuns(60 * S)).toBe(true);
    expect((await fence.acquireOrRenew()).held).toBe(false);
    expect(lease.holder()).toBe(SIDECAR);
  });

  it('cold environments share one observation: the Lease is taken exactly its 15 s after any of them first saw it unchanged', async () => {
    const { coldFence, sidecar, advance, lease, store } = rig();
    await sidecar.tick(); // the sidecar led, then its pod went away (no more renewals)
    advance(1 * S);
    expect((await coldFence().acquireOrRenew()).held).toBe(false); // first sight, at 1 s, kept in the store
    expect(store.state.observation).toMatchObject({ holder: SIDECAR, seenAt: 1 * S, durationSeconds: 15 });
    advance(15 * S - 1);
    expect(await coldFence().acquireOrRenew()).toMatchObject({ held: false, why: `held by ${SIDECAR}; expires in 1 s unless renewed` });
    advance(1);
    expect((await coldFence().acquireOrRenew()).held).toBe(true);
    expect(lease.holder()).toBe(US);
    expect(store.state).toMatchObject({ heldSince: 16 * S });
    expect(store.state.observation).toBeUndefined();
  });

  it('two environments seeing the record at once keep the earliest sight (a lost write re-reads)', async () => {
    const { coldFence, sidecar, advance, store } = rig();
    await sidecar.tick();
    const [first, second] = [coldFence(), coldFence()];
    await first.acquireOrRenew();
    const recorded = store.state.observation;
    advance(3 * S);
    await second.acquireOrRenew(); // a later sight of the same record keeps the first one's time
    expect(store.state.observation).toEqual(recorded);
    // A write based on a stale read loses, re-reads and keeps the stored sight.
    const stale = { ...store.state, version: store.state.version - 1, observation: undefined };
    expect(await coldFence().acquireOrRenew(stale)).toMatchObject({ held: false });
    expect(store.state.observation).toEqual(recorded);
  });

  it('the standby takes our lease when we stop renewing, and our EC2 mutations stop with it', async () => {
    const { fence, sidecarRuns, lease } = rig();
    expect((await fence.acquireOrRenew()).held).toBe(true);
    const storage = fencedBlockStorage(ec2, fence);
    calls.length = 0;
    await storage.attach(attachRequest);
    expect(calls).toEqual(['attach']);

    // Our schedule stops (the function fails): the sidecar waits our 180 s, then leads.
    expect(await sidecarRuns(175 * S)).toBe(false);
    expect(await sidecarRuns(10 * S)).toBe(true);
    expect(lease.holder()).toBe(SIDECAR);

    // A late pass of ours: its read is past the bound, the re-read finds the sidecar leading, no call goes out.
    expect(await storage.detach(detachRequest)).toMatchObject({ kind: 'failed', code: 'LeaseFenceLost' });
    expect(calls).toEqual(['attach']);
    // The store remembers we held it: a fenced pass now is a failback, and says so.
    expect(fence.verdict).toMatchObject({ held: false, state: 'failed-back', holder: SIDECAR });
  });

  it('reads the Lease again before an EC2 call once its last read is older than the bound: a Lease deleted meanwhile stops the call', async () => {
    const { fence, lease, advance } = rig('refuse');
    await lease.create({ holderIdentity: US, leaseDurationSeconds: 180, acquireTime: 0, renewTime: 0, leaseTransitions: 0 });
    expect((await fence.acquireOrRenew()).held).toBe(true);
    const storage = fencedBlockStorage(ec2, fence);
    calls.length = 0;
    lease.delete(); // a rollback by hand, bypassing the handback
    advance(5 * S - 1);
    await storage.attach(attachRequest); // within the bound: trusted, not read
    advance(1);
    expect(await storage.attach(attachRequest)).toMatchObject({ kind: 'failed', code: 'LeaseFenceLost' });
    expect(calls).toEqual(['attach']);
    expect(fence.verdict).toMatchObject({ state: 'no-lease' });
  });

  it('refuses to act when no Lease exists, unless told the sidecar is gone (then creates it)', async () => {
    const refusing = rig('refuse');
    expect(await refusing.fence.acquireOrRenew()).toEqual({
      held: false,
      state: 'no-lease',
      why: 'no Lease found: the sidecar runs elsewhere, under another name, or without leader election',
    });
    expect(refusing.lease.holder()).toBeUndefined();
    const creating = rig('create');
    expect((await creating.fence.acquireOrRenew()).held).toBe(true);
    expect(creating.lease.holder()).toBe(US);
  });

  it('rollback by hand: once our Lease is deleted the sidecar leads within one retry period', async () => {
    const { fence, sidecarRuns, lease } = rig();
    await fence.acquireOrRenew();
    lease.delete();
    expect(await sidecarRuns(5 * S)).toBe(true);
  });

  it('two of our passes renewing at once both hold it: losing the write to our own identity is not losing the lease', async () => {
    const { coldFence, lease } = rig();
    expect((await coldFence().acquireOrRenew()).held).toBe(true);
    const [first, second] = [coldFence(), coldFence()];
    expect((await Promise.all([first.acquireOrRenew(), second.acquireOrRenew()])).map((v) => v.held)).toEqual([true, true]);
    expect(lease.holder()).toBe(US);
  });

  it('a renewal keeps the acquire time and the transitions; a take counts one more transition', async () => {
    const { fence, sidecar, advance, lease } = rig();
    await sidecar.tick();
    await fence.acquireOrRenew();
    advance(15 * S);
    await fence.acquireOrRenew();
    expect(await lease.get()).toMatchObject({ holderIdentity: US, leaseTransitions: 1, acquireTime: 15 * S });
    advance(60 * S);
    await fence.acquireOrRenew();
    expect(await lease.get()).toMatchObject({ leaseTransitions: 1, acquireTime: 15 * S });
  });

  it('remembers that we held the Lease once, not on every renewal', async () => {
    const { fence, store, advance } = rig();
    await fence.acquireOrRenew();
    const version = store.state.version;
    advance(60 * S);
    await fence.acquireOrRenew();
    expect(store.state).toMatchObject({ version, heldSince: 0 });
  });
});

describe('a pass under the handover', () => {
  const pass = (options: PassOptions) => Promise.resolve({ dryRun: options.dryRun === true } as PassReport);
  const budget = { deadline: 60 * S, endsAt: 100 * S };
  const handoverOf = (r: ReturnType<typeof rig>, fence = true) => ({
    store: r.store,
    ...(fence ? { fence: r.fence } : {}),
    marginMs: 15 * S,
    now: () => 0,
  });

  it('runs as asked while we hold the lease, registered until its invocation ends (plus the margin), and leaves at its end', async () => {
    const r = rig();
    let registered: Record<string, number> = {};
    const report = await underHandover(handoverOf(r), budget, { passId: 'p1' }, (options) => {
      registered = { ...r.store.state.passes };
      return pass(options);
    });
    expect(report).toEqual({ dryRun: false, fence: { state: 'held' } });
    expect(registered).toEqual({ p1: 115 * S });
    expect(r.store.state.passes).toEqual({});
  });

  it("only plans while the sidecar's record is live, and says why and who holds it", async () => {
    const r = rig();
    await r.sidecarRuns(5 * S);
    expect(await underHandover(handoverOf(r), budget, { passId: 'p1' }, pass)).toEqual({
      dryRun: true,
      fenced: `held by ${SIDECAR}; expires in 15 s unless renewed`,
      fence: { state: 'waiting', holder: SIDECAR },
    });
  });

  it('writes turned off by a handback: a dry run that says so, and the Lease is not touched', async () => {
    const r = rig();
    r.store.state = { ...r.store.state, writes: 'off', writesChange: { at: 0, by: 'handback' } };
    const report = await underHandover(handoverOf(r), budget, { passId: 'p1' }, pass);
    expect(report).toMatchObject({
      dryRun: true,
      writesOff: expect.stringMatching(/^writes are off by handback at 1970-01-01T00:00:00.000Z/) as unknown,
    });
    expect(r.lease.holder()).toBeUndefined();
    expect(r.store.state.passes).toEqual({});
  });

  it('a pass that reads before it is admitted (late): run before the entry lands, acting only once admitted', async () => {
    const r = rig();
    let entered: () => void = () => undefined;
    const enter = r.store.enter.bind(r.store);
    r.store.enter = (passId, until) => new Promise((resolve) => (entered = () => resolve(enter(passId, until))));
    const seen: string[] = [];
    const reading = underHandover(
      handoverOf(r),
      budget,
      { passId: 'p1' },
      async (options) => {
        seen.push(`run, registered: ${Object.keys(r.store.state.passes).join(',')}`);
        const act = await options.admission;
        seen.push(`admitted: ${act}`);
        return { dryRun: options.dryRun === true || act !== true } as PassReport;
      },
      true,
    );
    await new Promise((resolve) => setImmediate(resolve));
    entered();
    expect(await reading).toEqual({ dryRun: false, fence: { state: 'held' } });
    expect(seen).toEqual(['run, registered: ', 'admitted: true']);
    expect(r.store.state.passes).toEqual({});
  });

  it('late, with writes off: admitted to plan only, says why, and leaves nothing behind', async () => {
    const r = rig();
    r.store.state = { ...r.store.state, writes: 'off', writesChange: { at: 0, by: 'handback' } };
    const report = await underHandover(
      handoverOf(r),
      budget,
      { passId: 'p1' },
      async (options) => ({ dryRun: (await options.admission) !== true }) as PassReport,
      true,
    );
    expect(report).toMatchObject({ dryRun: true, writesOff: expect.stringMatching(/^writes are off by handback/) as unknown });
    expect(r.lease.holder()).toBeUndefined();
  });

  it('drops registrations of passes that have surely stopped', async () => {
    const r = rig();
    r.store.state = { ...r.store.state, passes: { dead: 0, live: 50 * S } };
    await underHandover({ ...handoverOf(r, false), now: () => 1 }, budget, { passId: 'p1' }, pass);
    expect(r.store.state.passes).toEqual({ live: 50 * S });
  });
});
