import { describe, expect, it } from 'vitest';
import type { BlockStorage } from '../../../lambda/ports/block-storage.js';
import { fencedBlockStorage, LeaseFence, underFence } from '../../../lambda/reconcile/attacher/fence.js';
import type { PassOptions, PassReport } from '../../../lambda/reconcile/pass/types.js';
import { MemoryLease, SidecarElector } from '../../../sandbox/lease-election.js';

const S = 1000;
const US = 'ebs-attach-detach';

/** One lease, the sidecar's elector and our fence on one manual clock (no real time passes). */
function rig(durationSeconds = 180) {
  let now = 0;
  const lease = new MemoryLease();
  const sidecar = new SidecarElector(lease, 'ebs-csi-controller-0', () => now);
  const fence = new LeaseFence({ lock: lease, identity: US, durationSeconds, marginMs: 15 * S, now: () => now });
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
  return { lease, sidecar, fence, advance, sidecarRuns };
}

const calls: string[] = [];
const ec2 = {
  attach: () => (calls.push('attach'), Promise.resolve({ kind: 'started', device: '/dev/xvdaa' })),
  detach: () => (calls.push('detach'), Promise.resolve({ kind: 'started' })),
} as unknown as BlockStorage;
const attachRequest = {} as Parameters<BlockStorage['attach']>[0];

describe('the lease fence against the sidecar’s leader election', () => {
  it("never takes the sidecar's live lease", async () => {
    const { fence, sidecarRuns, lease } = rig();
    expect(await sidecarRuns(5 * S)).toBe(true);
    expect(await fence.acquireOrRenew()).toBe(false);
    expect(await sidecarRuns(60 * S)).toBe(true);
    expect(await fence.acquireOrRenew()).toBe(false);
    expect(lease.holder()).toBe('ebs-csi-controller-0');
  });

  it('takes an expired lease once it has seen it unchanged for the record’s 15 s, and the sidecar then stays a standby', async () => {
    const { fence, sidecar, advance, lease } = rig();
    await sidecar.tick(); // the sidecar led, then its pod went away (no more renewals)
    expect(await fence.acquireOrRenew()).toBe(false); // first sight: client-go waits a full duration from here
    advance(15 * S);
    expect(await fence.acquireOrRenew()).toBe(true);
    expect(lease.holder()).toBe(US);
    // The sidecar restarts as a candidate: our record (180 s) is valid on its clock, so it waits.
    for (let i = 0; i < 30; i++) {
      expect(await sidecar.tick()).toBe(false);
      advance(5 * S);
      if (i % 12 === 11) await fence.acquireOrRenew(); // our schedule renews every minute
    }
    expect(lease.holder()).toBe(US);
  });

  it('the standby takes our lease when we stop renewing, and our EC2 mutations stop with it', async () => {
    const { fence, sidecarRuns, lease } = rig();
    expect(await fence.acquireOrRenew()).toBe(true);
    const storage = fencedBlockStorage(ec2, fence);
    calls.length = 0;
    await storage.attach(attachRequest);
    expect(calls).toEqual(['attach']);

    // Our schedule stops (rollback, or the function fails): the sidecar waits our 180 s, then leads.
    expect(await sidecarRuns(175 * S)).toBe(false);
    expect(await sidecarRuns(10 * S)).toBe(true);
    expect(lease.holder()).toBe('ebs-csi-controller-0');

    // A late pass of ours: its record is past the margin, the re-read finds the sidecar leading, no call goes out.
    expect(await storage.detach({} as Parameters<BlockStorage['detach']>[0])).toMatchObject({ kind: 'failed', code: 'LeaseFenceLost' });
    expect(calls).toEqual(['attach']);
  });

  it('rollback: once our Lease is deleted the sidecar leads within one retry period', async () => {
    const { fence, sidecarRuns, lease } = rig();
    await fence.acquireOrRenew();
    lease.delete();
    expect(await sidecarRuns(5 * S)).toBe(true);
  });

  it('two of our passes renewing at once both hold it: losing the write to our own identity is not losing the lease', async () => {
    const { lease } = rig();
    const fence = (): LeaseFence => new LeaseFence({ lock: lease, identity: US, durationSeconds: 180, marginMs: 15 * S, now: () => 0 });
    expect(await fence().acquireOrRenew()).toBe(true);
    const [first, second] = [fence(), fence()];
    expect(await Promise.all([first.acquireOrRenew(), second.acquireOrRenew()])).toEqual([true, true]);
    expect(lease.holder()).toBe(US);
  });

  it('a renewal keeps the acquire time and the transitions; a take counts one more transition', async () => {
    const { fence, sidecar, advance, lease } = rig();
    await sidecar.tick();
    await fence.acquireOrRenew();
    advance(15 * S);
    await fence.acquireOrRenew();
    const taken = await lease.get();
    expect(taken).toMatchObject({ holderIdentity: US, leaseTransitions: 1, acquireTime: 15 * S });
    advance(60 * S);
    await fence.acquireOrRenew();
    expect(await lease.get()).toMatchObject({ leaseTransitions: 1, acquireTime: 15 * S });
  });
});

describe('a pass under the fence', () => {
  const pass = (options: PassOptions) => Promise.resolve({ dryRun: options.dryRun === true } as PassReport);

  it('runs as asked while we hold the lease', async () => {
    const { fence } = rig();
    expect(await underFence(fence, {}, pass)).toEqual({ dryRun: false });
  });

  it("only plans while the sidecar's record is live, and says why (a first sight waits a full duration)", async () => {
    const { fence, sidecarRuns } = rig();
    await sidecarRuns(5 * S);
    expect(await underFence(fence, {}, pass)).toEqual({
      dryRun: true,
      fenced: 'held by ebs-csi-controller-0; expires in 15 s unless renewed',
    });
  });

  it('runs as asked when there is no fence (LEASE_FENCE=off)', async () => {
    expect(await underFence(undefined, {}, pass)).toEqual({ dryRun: false });
  });
});
