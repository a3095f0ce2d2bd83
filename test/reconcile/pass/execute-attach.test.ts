import { describe, expect, it } from 'vitest';
import type { AttachOutcome } from '../../../lambda/ports/block-storage.js';
import type { ActualAttachment } from '../../../lambda/core/types.js';
import { attachment, like, node, op, pod, pv, pvc, record, snapshot, T0, uname } from '../../core/builders.js';
import { harness, podOnA, V, ec2ShowsAttached } from '../executor-harness.js';

describe("an attach, by EC2's answer", () => {
  it.each<[string, AttachOutcome, object, object, number]>([
    [
      'already attached to this instance: a success, recorded attached',
      { kind: 'already-attached', device: '/dev/xvdaa' },
      { outcome: 'ok' },
      { 'node-a': like<ActualAttachment>({ state: 'attached' }) },
      0,
    ],
    [
      'a transient failure: EC2 may still be attaching, so the attachment stays uncertain for verification',
      { kind: 'transient', message: 'timed out' },
      { outcome: 'failed', throttled: false },
      { 'node-a': like<ActualAttachment>({ state: 'uncertain' }) },
      0,
    ],
    [
      'throttled: failed and counted as a throttle',
      { kind: 'throttled', message: 'slow down' },
      { outcome: 'failed', throttled: true },
      {},
      0,
    ],
    [
      'a definite failure: nothing attached, nothing more asked of EC2',
      { kind: 'failed', code: 'UnauthorizedOperation', message: 'not allowed' },
      { outcome: 'failed', throttled: false },
      {},
      0,
    ],
  ])('%s', async (_case, answer, result, attachments, describes) => {
    const { pass, store, ec2 } = harness(podOnA());
    ec2.attachOutcome = answer;

    const report = await pass();

    expect(report.results).toEqual([expect.objectContaining({ kind: 'attach', ...result })]);
    expect(store.items.get(V)?.attachments).toEqual(attachments);
    expect(ec2.describes).toHaveLength(describes);
  });

  it.each([
    ['still attaching', 'attaching' as const, 'still attaching at the wait deadline; left for the next pass to resolve'],
    [
      'not shown yet (read lag)',
      'detached' as const,
      'EC2 accepted the attach but shows it detached at the wait deadline; kept uncertain until EC2 settles it',
    ],
  ])('says why an attach %s at the wait deadline is deferred', async (_case, state, detail) => {
    const { pass, ec2 } = harness(podOnA());
    ec2.waitResult = { state, reachedTarget: false };

    const report = await pass();

    expect(report.results).toEqual([expect.objectContaining({ outcome: 'deferred', detail })]);
  });

  it('never reports an attach whose record could not be completed (another pass took the volume meanwhile)', async () => {
    const { pass, store, kube } = harness(podOnA());
    let puts = 0;
    store.beforePut = () => {
      if (++puts === 2) store.items.set(V, { ...store.items.get(V)!, operations: {}, version: store.items.get(V)!.version + 1 });
    };

    const report = await pass();

    expect(report.results).toEqual([
      expect.objectContaining({
        outcome: 'failed',
        detail: expect.stringMatching(/^attached, but the record could not be completed: /) as string,
      }),
    ]);
    expect(kube.statusWrites).toEqual([]);
    expect(kube.volumeAttachments.get(`${V}|node-a`)).toBeUndefined();
  });

  it('after a conflicting write, starts only what the re-plan asks for this node: nothing, when another pass attached the volume elsewhere', async () => {
    const { pass, store, ec2 } = harness(podOnA());
    store.state = { version: 1, seededAt: T0 }; // verification due: the pass starts from EC2's word that nothing is attached
    store.beforePut = (next) => {
      store.beforePut = undefined;
      store.items.set(next.volumeId, { ...record(V, [attachment('node-b')]), version: 1 });
      ec2.volumes.set(V, ec2ShowsAttached('node-b', '/dev/xvdab'));
    };

    const report = await pass();

    expect(ec2.calls).toEqual([]);
    expect(report.results).toContainEqual(
      expect.objectContaining({
        kind: 'attach',
        outcome: 'deferred',
        detail: 'another pass changed the volume; the plan no longer asks for this',
      }),
    );
  });

  it('gives up, deferred, on a volume whose record keeps changing under every re-plan', async () => {
    const { pass, store, ec2 } = harness(podOnA());
    store.beforePut = () => store.items.set(V, { ...record(V, []), version: (store.items.get(V)?.version ?? 0) + 1 });

    const report = await pass();

    expect(ec2.calls).toEqual([]);
    expect(report.results).toEqual([expect.objectContaining({ outcome: 'deferred', detail: `${V} kept changing underneath this pass` })]);
  });
});

describe('an expired operation, resolved against EC2', () => {
  const expired = () =>
    record(V, [attachment('node-a', { state: 'attaching' })], {
      operations: { volume: op('attach', 'node-a', { leaseExpiresAt: T0 - 1 }) },
    });

  it('fails, keeping the lock, when EC2 cannot be asked', async () => {
    const { pass, store, ec2 } = harness(podOnA(), [expired()]);
    ec2.describeVolumes = () => Promise.reject(new Error('EC2 unreachable'));

    const report = await pass();

    expect(report.results[0]).toMatchObject({ kind: 'resolve', outcome: 'failed', detail: 'could not ask EC2: Error: EC2 unreachable' });
    expect(store.items.get(V)?.operations).toEqual(expired().operations);
  });

  it('starts nothing once the pass is past its deadline', async () => {
    const { pass, store } = harness(podOnA(), [expired()]);

    const report = await pass(T0);

    expect(report.results[0]).toMatchObject({ kind: 'resolve', outcome: 'deferred', detail: 'no time left in this pass' });
    expect(store.items.get(V)?.operations).toEqual(expired().operations);
  });

  it.each([
    ['the volume is gone', { volumeId: V, exists: false, attachments: [] }, 'no attachment'],
    [
      'the volume is attached to another instance only',
      {
        volumeId: V,
        exists: true as const,
        attachments: [{ instanceId: 'i-0000000000000000b', state: 'attached' as const, device: '/dev/xvdab' }],
      },
      'no attachment',
    ],
  ])("settles the attach as never made on the operation's instance when %s", async (_case, observation, says) => {
    const { pass, store, ec2 } = harness(podOnA(), [expired()]);
    ec2.volumes.set(V, observation);
    ec2.attachOutcome = { kind: 'failed', code: 'IncorrectState', message: 'stop here' };

    const report = await pass();

    expect(report.results[0]).toMatchObject({
      kind: 'resolve',
      outcome: 'ok',
      detail: `expired attach op-attach-node-a settled: EC2 says ${says}`,
    });
    expect(store.items.get(V)?.operations['volume']?.id).not.toBe('op-attach-node-a');
  });

  it('is deferred when another pass settled the operation first', async () => {
    const { pass, store } = harness(podOnA(), [expired()]);
    // The resolve's write (the one releasing the lock) finds another pass released it first.
    store.beforePut = (next) => {
      if (next.operations['volume'] !== undefined) return;
      store.beforePut = undefined;
      store.items.set(V, { ...store.items.get(V)!, operations: {}, version: store.items.get(V)!.version + 1 });
    };

    const report = await pass();

    expect(report.results[0]).toMatchObject({ kind: 'resolve', outcome: 'deferred' });
  });
});

describe('a Multi-Attach conflict', () => {
  it('attaches nothing and tells the waiting pod why, in a warning event', async () => {
    const cluster = snapshot({
      nodes: [node('node-a', { inUse: [V], attached: [{ name: uname(V), devicePath: '/dev/xvdaa' }] }), node('node-b')],
      pods: [pod('db-0', { node: 'node-a', claims: ['data'] }), pod('db-1', { node: 'node-b', claims: ['data'] })],
      pvcs: [pvc('data')],
      pvs: [pv('pv-data', { volumeId: V })],
    });
    const { pass, kube, ec2 } = harness(cluster, [record(V, [attachment('node-a', { mounted: true, reported: true })])]);

    const report = await pass();

    expect(ec2.calls).toEqual([]);
    expect(report.results).toContainEqual(
      expect.objectContaining({
        kind: 'multiAttachConflict',
        nodeName: 'node-b',
        outcome: 'ok',
        detail: expect.stringMatching(/^exclusive volume attached to node-a: /) as string,
      }),
    );
    expect(kube.events.map((e) => [e.pod.name, e.event.type, e.event.reason, e.event.message])).toEqual([
      ['db-1', 'Warning', 'FailedAttachVolume', 'Multi-Attach error for volume "pv-data" Volume is already used by pod(s) db-0'],
    ]);
  });
});

describe("EC2's answer to the attach's own wait is the pass's latest word on the volume", () => {
  it('a volume the verification saw unattached and this pass attached is reported attached on its VolumeAttachment', async () => {
    const { pass, store, kube, ec2 } = harness(podOnA());
    store.state = { version: 1, lastVerifiedAt: T0 - 10 * 60_000, seededAt: T0 };
    ec2.volumes.set(V, { volumeId: V, exists: true, attachments: [] });

    const report = await pass();

    expect(report.verified).toBe(true);
    expect(report.results).toEqual([expect.objectContaining({ kind: 'attach', outcome: 'ok' })]);
    expect(kube.volumeAttachments.get(`${V}|node-a`)).toEqual({ attached: true, devicePath: '/dev/xvdaa' });
  });
});
