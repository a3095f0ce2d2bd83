/**
 * Resolving an operation whose lease ran out (lambda/reconcile/pass/execute-resolve.ts): EC2 is asked
 * about the volume, what it says of the operation's instance is written down, and the lock released —
 * in a write fenced on that very operation. (More cases in execute-attach.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import type { VolumeObservation, VolumeRecord } from '../../../lambda/core/types.js';
import { attachment, instanceOf, op, record, T0 } from '../../core/builders.js';
import { harness, podOnA, V } from '../executor-harness.js';

const expired = () =>
  record(V, [attachment('node-a', { state: 'attaching' })], {
    operations: { volume: op('attach', 'node-a', { leaseExpiresAt: T0 - 1 }) },
  });

describe('an expired attach, resolved against EC2', () => {
  it("is written down attached when EC2 shows it attached to the operation's instance, and the lock released", async () => {
    const { pass, store, ec2 } = harness(podOnA(), [expired()]);
    ec2.volumes.set(V, {
      volumeId: V,
      exists: true,
      attachments: [{ instanceId: instanceOf('node-a'), state: 'attached', device: '/dev/xvdaa' }],
    });

    const report = await pass();

    expect(ec2.describes).toEqual([[V], [V]]); // the pass's look at unsettled volumes, then the resolve's own
    expect(report.results).toEqual([expect.objectContaining({ kind: 'resolve', outcome: 'ok' })]);
    expect(store.items.get(V)?.operations).toEqual({});
    expect(store.items.get(V)?.attachments['node-a']).toMatchObject({
      state: 'attached',
      instanceId: instanceOf('node-a'),
      device: '/dev/xvdaa',
    });
  });

  it('is settled as never made when EC2 does not list the volume at all', async () => {
    const { pass, store, ec2 } = harness(podOnA(), [expired()]);
    ec2.describeVolumes = () => Promise.resolve(new Map<string, VolumeObservation>());

    const report = await pass();

    expect(report.results).toEqual([expect.objectContaining({ kind: 'resolve', outcome: 'ok' })]);
    expect(store.items.get(V)?.attachments['node-a']).toBeUndefined();
  });

  it('is settled in a write fenced on the expired operation (it must still hold the lock)', async () => {
    const { pass, store } = harness(podOnA(), [expired()]);
    const releases: unknown[] = [];
    const put = store.put.bind(store);
    store.put = (next: VolumeRecord, fence?: { lockKey: string; operationId: string }) => {
      if (Object.keys(next.operations).length === 0) releases.push(fence);
      return put(next, fence);
    };

    await pass();

    expect(releases).toEqual([{ lockKey: 'volume', operationId: 'op-attach-node-a' }]);
  });

  it('fails (not merely deferred) when the record keeps changing under every write', async () => {
    const { pass, store } = harness(podOnA(), [expired()]);
    // Before each write releasing the lock, another pass writes the record (the operation still holding it).
    store.beforePut = (next) => {
      if (Object.keys(next.operations).length > 0) return;
      const stored = store.items.get(V)!;
      store.items.set(V, { ...stored, version: stored.version + 1 });
    };

    const report = await pass();

    expect(report.results[0]).toMatchObject({ kind: 'resolve', outcome: 'failed', detail: `${V} kept changing underneath this pass` });
  });
});
