/**
 * The watcher's machinery (reconcile/watch), over fakes: what it lists and watches, how it resumes,
 * re-watches and lists again, notices a stalled stream, coalesces changes into passes, retries,
 * saves checkpoints only past handled changes, and how it ends.
 */
import { describe, expect, it } from 'vitest';
import { targetKey } from '../../../lambda/reconcile/pass/types.js';
import { T0 } from '../../core/builders.js';
import { actingPod, flush, passReport, podChange, watcherHarness } from './harness.js';

/** Starts the watcher and lets it open its streams; the report comes when it ends (a promise in a box, so `await` does not wait for it). */
const started = async (w: ReturnType<typeof watcherHarness>) => {
  const running = w.run();
  await flush();
  return { running };
};

describe('starting', () => {
  it('with no checkpoint: lists, hands every listed object to the mode, then watches from the list', async () => {
    const w = watcherHarness();
    w.cluster.snapshot.pods = [actingPod('db-0', '90')];
    const { running } = await started(w);

    expect(w.cluster.lists).toEqual(['pods']);
    expect(w.watch()).toMatchObject({ kind: 'pods', resourceVersion: '100', options: { timeoutSeconds: 30 } });
    expect(w.calls.map((c) => targetKey(c.target))).toEqual(['pod/default/db-0']);
    w.calls[0]?.finish();
    await w.end();
    expect(await running).toMatchObject({ joined: true, why: 'deadline', relists: 1, passes: 1 });
  });

  it('with a checkpoint: watches from it, lists nothing', async () => {
    const w = watcherHarness();
    w.watchers.checkpoints.set('pods', { resourceVersion: '77', savedAt: T0 - 1 });
    const { running } = await started(w);

    expect(w.cluster.lists).toEqual([]);
    expect(w.watch().resourceVersion).toBe('77');
    await w.end();
    expect(await running).toMatchObject({ relists: 0 });
  });

  it('ends at once while another watcher has minutes left, touching nothing', async () => {
    const w = watcherHarness();
    w.watchers.lease = { holders: { other: { startedAt: T0, endsAt: T0 + 240_000, heartbeatAt: T0, watching: true } }, version: 4 };

    expect(await w.run()).toMatchObject({ joined: false, why: 'a live watcher is not within its last minute' });
    expect(w.cluster.watches).toEqual([]);
    expect(w.watchers.lease.version).toBe(4);
  });
});

describe('changes and passes', () => {
  it('coalesces changes to one target: one pass for those queued, one more for those during it, never two at once', async () => {
    const w = watcherHarness({ settings: { concurrency: 1 } });
    w.watchers.checkpoints.set('pods', { resourceVersion: '1', savedAt: T0 });
    const { running } = await started(w);
    const watch = w.watch();
    watch.send(podChange('a', '2'));
    watch.send(podChange('b', '3'));
    watch.send(podChange('b', '4'));
    await flush();
    expect(w.calls.map((c) => targetKey(c.target))).toEqual(['pod/default/a']);
    w.calls[0]?.finish();
    await flush();
    expect(w.calls.map((c) => targetKey(c.target))).toEqual(['pod/default/a', 'pod/default/b']);
    watch.send(podChange('b', '5'));
    await flush();
    expect(w.calls).toHaveLength(2);
    w.calls[1]?.finish();
    await flush();
    expect(w.calls.map((c) => targetKey(c.target))).toEqual(['pod/default/a', 'pod/default/b', 'pod/default/b']);
    w.calls[2]?.finish();
    await w.end();
    expect(await running).toMatchObject({ changes: 4, actionable: 4, passes: 3 });
  });

  it('a change that asks for nothing runs no pass', async () => {
    const w = watcherHarness();
    w.watchers.checkpoints.set('pods', { resourceVersion: '1', savedAt: T0 });
    const { running } = await started(w);
    w.watch().send(podChange('settled', '2', false));
    await flush();
    await w.end();
    expect(w.calls).toEqual([]);
    expect(await running).toMatchObject({ changes: 1, actionable: 0 });
  });

  it('a later change that asks for nothing answers the changes still queued for that object (our own write came back)', async () => {
    const w = watcherHarness({ settings: { concurrency: 1 } });
    w.watchers.checkpoints.set('pods', { resourceVersion: '1', savedAt: T0 });
    const { running } = await started(w);
    const watch = w.watch();
    watch.send(podChange('a', '2'));
    watch.send(podChange('b', '3'));
    watch.send(podChange('b', '4', false));
    await flush();
    w.calls[0]?.finish();
    await w.tick(5_000);
    // b's pass was never run: its object settled first; its changes count as handled.
    expect(w.calls.map((c) => targetKey(c.target))).toEqual(['pod/default/a']);
    expect(w.watchers.saves).toEqual(['pods 4']);
    await w.end();
    expect(await running).toMatchObject({ changes: 3, actionable: 2, passes: 1 });
  });

  it('a failed pass is retried after its backoff and given up after the last attempt, left to the full pass', async () => {
    const w = watcherHarness({ settings: { retry: { initialMs: 500, maxMs: 30_000, failures: 2, followUps: 0 } } });
    w.watchers.checkpoints.set('pods', { resourceVersion: '1', savedAt: T0 });
    const { running } = await started(w);
    w.watch().send(podChange('a', '2'));
    await flush();
    w.calls[0]?.fail(new Error('API server unavailable'));
    await flush();
    await w.tick(400);
    expect(w.calls).toHaveLength(1);
    await w.tick(100);
    expect(w.calls).toHaveLength(2);
    w.calls[1]?.fail(new Error('API server unavailable'));
    await flush();
    await w.tick(60_000);
    await w.end();
    expect(w.calls).toHaveLength(2);
    expect(await running).toMatchObject({ failedPasses: 2, abandoned: 1 });
    expect(w.logs.filter((l) => l.startsWith('error'))).toEqual(['error watcher gave up on a target; the full pass will look at it']);
    // Given up is handled as far as the checkpoint goes: the full pass owns it now, and the store's mark makes that pass complete.
    expect(w.watchers.checkpoints.get('pods')?.resourceVersion).toBe('2');
    expect(w.watchers.gaveUpAt).toBeGreaterThanOrEqual(T0);
  });

  it('a give-up whose mark cannot be written stays unhandled: the checkpoint stays before it, so the next watcher tries again', async () => {
    const w = watcherHarness({ settings: { retry: { initialMs: 500, maxMs: 30_000, failures: 1, followUps: 0 } } });
    w.watchers.checkpoints.set('pods', { resourceVersion: '1', savedAt: T0 });
    w.watchers.markGaveUp = () => Promise.reject(new Error('DynamoDB unavailable'));
    const { running } = await started(w);
    w.watch().send(podChange('a', '2'));
    await flush();
    w.calls[0]?.fail(new Error('API server unavailable'));
    await flush();
    await w.end();
    expect(await running).toMatchObject({ failedPasses: 1, abandoned: 1 });
    expect(w.watchers.checkpoints.get('pods')?.resourceVersion).toBe('1');
  });

  it('an unconverged pass is looked at again after a backoff, and at once when another pass detached something', async () => {
    const w = watcherHarness();
    w.watchers.checkpoints.set('pods', { resourceVersion: '1', savedAt: T0 });
    const { running } = await started(w);
    w.watch().send(podChange('moving', '2'));
    await flush();
    w.calls[0]?.finish(passReport({ converged: false }));
    await w.tick(100);
    expect(w.calls).toHaveLength(1);
    w.watch().send(podChange('old-node', '3'));
    await flush();
    w.calls[1]?.finish(passReport({ detached: true }));
    await w.tick(1);
    expect(w.calls.map((c) => targetKey(c.target))).toEqual(['pod/default/moving', 'pod/default/old-node', 'pod/default/moving']);
    w.calls[2]?.finish();
    await w.end();
    await running;
    expect(w.reactions.map((r) => r.outcome)).toEqual(['unconverged', 'converged', 'converged']);
  });
});

describe('the stream', () => {
  it('re-watches from the last resourceVersion heard when the API server closes it, and lists again after a 410', async () => {
    const w = watcherHarness();
    w.watchers.checkpoints.set('pods', { resourceVersion: '1', savedAt: T0 });
    const { running } = await started(w);
    w.watch().send({ type: 'bookmark', resourceVersion: '9' });
    w.watch().send({ type: 'closed' });
    await flush();
    expect(w.watch().resourceVersion).toBe('9');
    w.watch().send({ type: 'expired' });
    await flush();
    expect(w.cluster.lists).toEqual(['pods']);
    expect(w.watch().resourceVersion).toBe('100');
    await w.end();
    expect(await running).toMatchObject({ rewatches: 1, relists: 1 });
  });

  it('cuts a stream that says nothing past the stall bound and watches again from where it was', async () => {
    const w = watcherHarness();
    w.watchers.checkpoints.set('pods', { resourceVersion: '1', savedAt: T0 });
    const { running } = await started(w);
    w.watch().send(podChange('a', '5', false));
    await w.tick(44_000);
    expect(w.cluster.watches).toHaveLength(1);
    await w.tick(1_000);
    expect(w.cluster.watches).toHaveLength(2);
    expect(w.cluster.watches[0]?.stopped).toBe(true);
    expect(w.watch().resourceVersion).toBe('5');
    await w.end();
    expect(await running).toMatchObject({ stalls: 1 });
    expect(w.logs).toContain('warn watch stalled: no change, bookmark or close; watching again');
  });
});

describe('checkpoints', () => {
  it('move only past handled changes, at most every checkpointMs, and once more when the watcher ends', async () => {
    const w = watcherHarness();
    w.watchers.checkpoints.set('pods', { resourceVersion: '1', savedAt: T0 });
    const { running } = await started(w);
    const watch = w.watch();
    watch.send(podChange('quiet', '2', false));
    watch.send(podChange('busy', '3'));
    watch.send({ type: 'bookmark', resourceVersion: '4' });
    await w.tick(5_000);
    expect(w.watchers.saves).toEqual(['pods 2']);
    w.calls[0]?.finish();
    await w.tick(1_000);
    expect(w.watchers.saves).toEqual(['pods 2']);
    await w.tick(5_000);
    expect(w.watchers.saves).toEqual(['pods 2', 'pods 4']);
    watch.send(podChange('late', '5'));
    await flush();
    await w.end();
    w.calls[1]?.finish();
    await running;
    // The watcher ended with the last pass finished: its change is handled, and saved.
    expect(w.watchers.saves).toEqual(['pods 2', 'pods 4', 'pods 5']);
  });
});

describe('ending', () => {
  it('steps down once its successor watches: its passes finish, its checkpoint is saved, it leaves the lease', async () => {
    const w = watcherHarness();
    w.watchers.checkpoints.set('pods', { resourceVersion: '1', savedAt: T0 });
    const { running } = await started(w);
    const own = Object.keys(w.watchers.lease.holders)[0] ?? '';
    w.watchers.lease = {
      ...w.watchers.lease,
      holders: { ...w.watchers.lease.holders, next: { startedAt: T0 + 1, endsAt: T0 + 600_000, heartbeatAt: T0 + 1, watching: true } },
    };
    await w.tick(10_000);

    const report = await running;

    expect(report).toMatchObject({ why: 'watcher next took over' });
    expect(Object.keys(w.watchers.lease.holders)).toEqual(['next']);
    expect(own).not.toBe('next');
  });

  it('at its deadline (less than a pass left) it stops taking changes', async () => {
    const w = watcherHarness({ lifetimeMs: 30_000 });
    w.watchers.checkpoints.set('pods', { resourceVersion: '1', savedAt: T0 });
    const { running } = await started(w);
    await w.tick(16_000);
    expect(await running).toMatchObject({ why: 'deadline' });
    expect(w.watch().stopped).toBe(true);
  });
});
