import { describe, expect, it } from 'vitest';
import { runTargetedPass } from '../../../lambda/reconcile/controller/targeted-pass.js';
import { attachment, instanceOf, node, op, pod, pv, pvc, record, snapshot, T0, uname, vol } from '../../core/builders.js';
import type { FakeBlockStorage } from '../../support/fake-ports.js';
import { harness, noPods, podOnA, V, ec2ShowsAttached } from '../executor-harness.js';

describe('executing a plan', () => {
  it('attaches, records the device, reports the node and the VolumeAttachment, and tells the pod', async () => {
    const { pass, store, kube, ec2 } = harness(podOnA());

    const report = await pass();

    expect(report.results).toEqual([expect.objectContaining({ kind: 'attach', outcome: 'ok' })]);
    expect(ec2.calls).toEqual([`attach ${V}`, 'wait attached']);
    expect(store.items.get(V)?.attachments['node-a']).toMatchObject({ state: 'attached', device: '/dev/xvdaa', reported: true });
    expect(kube.statusWrites).toEqual([{ node: 'node-a', volumes: [{ name: uname(V), devicePath: '/dev/xvdaa' }] }]);
    expect(kube.volumeAttachments.get(`${V}|node-a`)).toEqual({ attached: true, devicePath: '/dev/xvdaa' });
    expect(kube.events.map((e) => e.event)).toEqual([
      { type: 'Normal', reason: 'SuccessfulAttachVolume', message: 'AttachVolume.Attach succeeded for volume "pv-data" ' },
    ]);
  });

  it('leaves an attach still attaching at the wait deadline recorded, its lease ended for the next pass to resolve', async () => {
    const { pass, store, ec2, kube } = harness(podOnA());
    ec2.waitResult = { state: 'attaching', reachedTarget: false };

    const report = await pass();

    expect(report.results).toEqual([expect.objectContaining({ kind: 'attach', outcome: 'deferred' })]);
    expect(Object.values(store.items.get(V)?.operations ?? {})).toEqual([expect.objectContaining({ kind: 'attach', leaseExpiresAt: T0 })]);
    expect(kube.statusWrites).toEqual([]);
    expect(report.converged).toBe(false);
  });

  it('keeps an accepted attach EC2 does not show yet (read lag) uncertain, holding the volume, instead of forgetting it', async () => {
    const { pass, store, ec2, kube } = harness(podOnA());
    ec2.waitResult = { state: 'detached', reachedTarget: false };

    const report = await pass();

    expect(report.results).toEqual([expect.objectContaining({ kind: 'attach', outcome: 'deferred' })]);
    const stored = store.items.get(V);
    expect(stored?.operations).toEqual({});
    expect(stored?.attachments['node-a']).toMatchObject({ state: 'uncertain', instanceId: instanceOf('node-a'), device: '/dev/xvdaa' });
    expect(stored?.backoff['attach:node-a']).toMatchObject({ failures: 1 });
    expect(kube.statusWrites).toEqual([]);
    expect(kube.events).toEqual([]);
  });

  it("waits for an attach only until the core judges it stuck (stuckAttachMs after EC2's AttachTime, else after the intent)", async () => {
    const { pass, ec2 } = harness(podOnA());

    await pass();

    const giveUp = ec2.lastWait?.giveUp;
    const seen = (state: 'attaching' | 'attached', attachTime?: number) => ({
      instanceId: instanceOf('node-a'),
      state,
      device: '/dev/xvdaa',
      ...(attachTime === undefined ? {} : { attachTime }),
    });
    expect([
      giveUp?.(seen('attaching', T0), T0 + 90_000),
      giveUp?.(seen('attaching', T0), T0 + 90_001),
      giveUp?.(seen('attaching'), T0 + 90_001),
      giveUp?.(seen('attached', T0), T0 + 600_000),
    ]).toEqual([false, true, true, false]);
  });

  it("records a failed attach with backoff and tells the pod in upstream's words", async () => {
    const { pass, store, ec2, kube } = harness(podOnA());
    ec2.attachOutcome = { kind: 'failed', code: 'UnauthorizedOperation', message: 'not allowed' };

    await pass();

    const stored = store.items.get(V);
    expect(stored?.attachments).toEqual({});
    expect(stored?.backoff['attach:node-a']).toMatchObject({ failures: 1, notBefore: T0 + 500, lastError: 'not allowed' });
    expect(kube.events.map((e) => e.event.message)).toEqual(['AttachVolume.Attach failed for volume "pv-data" : not allowed']);
    expect(kube.volumeAttachments.get(`${V}|node-a`)).toEqual({ attached: false, attachError: 'not allowed' });
  });

  it('writes down where EC2 says the volume is when it answers attached-elsewhere, on a node that reports it', async () => {
    const cluster = podOnA();
    cluster.nodes[1] = node('node-b', { attached: [{ name: uname(V), devicePath: '/dev/xvdab' }] });
    const { pass, store, ec2 } = harness(cluster);
    ec2.attachOutcome = { kind: 'attached-elsewhere', instanceIds: [instanceOf('node-b')], message: 'vol in use' };
    ec2.volumes.set(V, ec2ShowsAttached('node-b', '/dev/xvdab'));

    await pass();

    expect(Object.keys(store.items.get(V)?.attachments ?? {})).toEqual(['node-b']);
  });

  it('takes nothing on record after attached-elsewhere when no Kubernetes object names the volume on that node', async () => {
    const { pass, store, ec2 } = harness(podOnA());
    ec2.attachOutcome = { kind: 'attached-elsewhere', instanceIds: [instanceOf('node-b')], message: 'vol in use' };
    ec2.volumes.set(V, ec2ShowsAttached('node-b', '/dev/xvdab'));

    await pass();

    expect(store.items.get(V)?.attachments ?? {}).toEqual({});
    expect(ec2.calls.filter((call) => call.startsWith('detach'))).toEqual([]);
  });

  it('says so, and goes on, when EC2 cannot be asked where the volume is after attached-elsewhere', async () => {
    const { pass, deps, store, ec2 } = harness(podOnA());
    const warnings: unknown[][] = [];
    deps.log = { ...deps.log, warn: (...args: unknown[]) => void warnings.push(args) };
    ec2.attachOutcome = { kind: 'attached-elsewhere', instanceIds: [instanceOf('node-b')], message: 'vol in use' };
    ec2.describeVolumes = () => Promise.reject(new Error('ServiceUnavailable'));

    const report = await pass();

    expect(report.results).toEqual([expect.objectContaining({ kind: 'attach', outcome: 'failed' })]);
    expect(store.items.get(V)?.attachments ?? {}).toEqual({});
    expect(warnings).toContainEqual(['could not describe volume', { volumeId: V, error: 'Error: ServiceUnavailable' }]);
  });

  it('abandons a detach when the kubelet mounted the volume again since the pass read the node', async () => {
    const { pass, kube, ec2 } = harness(noPods(), [record(V, [attachment('node-a')])]);
    kube.liveInUse.set('node-a', [uname(V)]);

    const report = await pass();

    expect(ec2.calls).toEqual([]);
    expect(report.results).toContainEqual(
      expect.objectContaining({ kind: 'detach', outcome: 'deferred', detail: 'mounted again since the pass read the node' }),
    );
  });

  // Another pass may list the volume on the node again between this pass's unreport and its DetachVolume (invariant 5).
  it('abandons a detach when the node lists the volume again after the unreport: no DetachVolume, the attachment stands', async () => {
    const { pass, kube, ec2, store } = harness(noPods(), [record(V, [attachment('node-a')])]);
    kube.liveAttached.set('node-a', [uname(V)]);

    const report = await pass();

    expect(ec2.calls).toEqual([]);
    expect(report.results).toContainEqual(
      expect.objectContaining({ kind: 'detach', outcome: 'deferred', detail: 'listed on the node again since this pass unreported it' }),
    );
    const after = store.items.get(V)!;
    expect(after.operations).toEqual({});
    expect(after.backoff).toEqual({});
    expect(after.attachments['node-a']?.state).toBe('attached');
  });

  // A deleted node object whose instance runs on: nothing newer than the last word on record can come from it.
  it.each([
    ['gone when the pass read it: the last word on record (unmounted) stands', false, [`detach ${V}`, 'wait detached'], 'ok'],
    ['deleted since the pass read it: the next pass decides from the record', true, [], 'deferred'],
  ])('a detach from a node whose object is %s', async (_case, readTheNode, calls, outcome) => {
    const cluster = readTheNode ? noPods() : snapshot({ nodes: [], pvs: [pv('pv-data', { volumeId: V })] });
    const { pass, kube, ec2 } = harness(cluster, [record(V, [attachment('node-a', { mounted: false })])]);
    kube.deletedSinceRead.add('node-a');

    const report = await pass();

    expect(ec2.calls).toEqual(calls);
    expect(report.results).toContainEqual(expect.objectContaining({ kind: 'detach', outcome }));
  });

  it("attaches a rescheduled pod's volume in the same pass that forced it off an out-of-service node, without a Multi-Attach warning", async () => {
    const moved = snapshot({
      nodes: [node('node-a', { outOfService: true, inUse: [V], attached: [{ name: uname(V), devicePath: '/dev/xvdaa' }] }), node('node-b')],
      pods: [pod('db-0', { node: 'node-b', claims: ['data'] })],
      pvcs: [pvc('data')],
      pvs: [pv('pv-data', { volumeId: V })],
    });
    const { pass, kube, ec2 } = harness(moved, [record(V, [attachment('node-a')])]);

    const report = await pass();

    expect(ec2.calls).toEqual([`detach ${V}`, 'wait detached', `attach ${V}`, 'wait attached']);
    expect(kube.events.map((e) => e.event.reason)).toEqual(['SuccessfulAttachVolume']);
    expect(report.converged).toBe(true);
  });

  it('never detaches a volume whose removal from the node status failed', async () => {
    const { pass, kube, ec2 } = harness(noPods(), [record(V, [attachment('node-a')])]);
    kube.failStatusWrites = true;

    const report = await pass();

    expect(ec2.calls).toEqual([]);
    expect(report.results.map((r) => [r.kind, r.outcome])).toEqual([
      ['unreport', 'failed'],
      ['detach', 'deferred'],
    ]);
  });

  it.each([
    { due: 'an attach', cluster: podOnA, records: [] },
    { due: 'an unreport and its detach', cluster: () => noPods(), records: [record(V, [attachment('node-a')])] },
  ])('starts nothing once the pass is past its deadline: $due', async ({ cluster, records }) => {
    const { pass, ec2, store, kube } = harness(cluster(), records);

    const report = await pass(T0);

    expect(ec2.calls).toEqual([]);
    expect([...store.items.values()].flatMap((r) => Object.keys(r.operations))).toEqual([]); // no intent recorded
    expect(kube.statusWrites).toEqual([]);
    expect(report.results.length).toBeGreaterThan(0);
    expect(report.results.map((r) => [r.outcome, r.detail])).toEqual(report.results.map(() => ['deferred', 'no time left in this pass']));
  });

  it('re-plans after a conflicting write, on what EC2 says now: another pass attached the volume first, so nothing is called', async () => {
    const { pass, store, ec2 } = harness(podOnA());
    store.state = { version: 1, seededAt: T0 }; // verification due: the pass starts from EC2's word that nothing is attached
    store.beforePut = (next) => {
      store.beforePut = undefined;
      store.items.set(next.volumeId, { ...record(V, [attachment('node-a')]), version: 1 });
      ec2.volumes.set(V, ec2ShowsAttached('node-a', '/dev/xvdaa'));
    };

    const report = await pass();

    expect(ec2.calls).toEqual([]);
    expect(ec2.describes).toEqual([[V], [V]]); // verification, then asked again after the conflict, before re-planning
    expect(report.results).toEqual([expect.objectContaining({ kind: 'attach', outcome: 'deferred' })]);
  });

  it('a targeted pass for a pod reads only that pod, its node and the nodes its volume is on', async () => {
    const { deps, kube, ec2 } = harness(podOnA());
    let fullReads = 0;
    kube.readAll = () => {
      fullReads++;
      return Promise.reject(new Error('a targeted pass must not list the cluster'));
    };

    const report = await runTargetedPass(deps, { kind: 'pod', namespace: 'default', name: 'db-0' }, { deadline: T0 + 60_000 });

    expect(fullReads).toBe(0);
    expect(ec2.calls).toEqual([`attach ${V}`, 'wait attached']);
    expect(report).toMatchObject({ kind: 'targeted', converged: true });
  });

  it('a targeted pass reads a node object that has no status yet (just registered) as listing nothing', async () => {
    const cluster = podOnA();
    delete cluster.nodes[0]!.status;
    const { deps, ec2 } = harness(cluster);

    await runTargetedPass(deps, { kind: 'pod', namespace: 'default', name: 'db-0' }, { deadline: T0 + 60_000 });

    expect(ec2.calls).toEqual([`attach ${V}`, 'wait attached']);
  });

  it('a dry-run targeted pass reports what it would do and changes nothing anywhere', async () => {
    const { deps, ec2, store, kube } = harness(podOnA());

    const report = await runTargetedPass(
      deps,
      { kind: 'pod', namespace: 'default', name: 'db-0' },
      { deadline: T0 + 60_000 },
      { dryRun: true },
    );

    expect(report).toMatchObject({ kind: 'targeted', dryRun: true, results: [] });
    expect(report.actions).toEqual([expect.objectContaining({ kind: 'attach', volumeId: V, nodeName: 'node-a' })]);
    expect(ec2.calls).toEqual([]);
    expect(store.items.size).toBe(0);
    expect(kube.statusWrites).toEqual([]);
  });

  it('a targeted pass for a pod whose node hint is stale finds the pod itself, not a namesake in another namespace on the hinted node', async () => {
    const namesake = pod('db-0', { ns: 'team-a', node: 'node-a' });
    namesake.metadata.uid = 'uid-pod-team-a-db-0';
    const { deps, ec2, store } = harness(
      snapshot({
        nodes: [node('node-a'), node('node-b')],
        pods: [namesake, pod('db-0', { node: 'node-b', claims: ['data'] })],
        pvcs: [pvc('data')],
        pvs: [pv('pv-data', { volumeId: V })],
      }),
    );

    await runTargetedPass(deps, { kind: 'pod', namespace: 'default', name: 'db-0', nodeHint: 'node-a' }, { deadline: T0 + 60_000 });

    expect(ec2.calls).toEqual([`attach ${V}`, 'wait attached']);
    expect(Object.keys(store.items.get(V)?.attachments ?? {})).toEqual(['node-b']);
  });
});

/** A pod rescheduled from node-a to node-b while its RWO volume is still attached to node-a. */
const rescheduled = (nodeA: Parameters<typeof node>[1] = {}) =>
  snapshot({
    nodes: [node('node-a', { attached: [{ name: uname(V), devicePath: '/dev/xvdaa' }], ...nodeA }), node('node-b')],
    pods: [pod('db-0', { node: 'node-b', claims: ['data'] })],
    pvcs: [pvc('data')],
    pvs: [pv('pv-data', { volumeId: V })],
  });

describe('a Multi-Attach conflict after the old node let go of the volume in this pass', () => {
  const outOfService = { outOfService: true, inUse: [V] };
  const onNodeA = () => ({
    volumeId: V,
    exists: true,
    attachments: [{ instanceId: instanceOf('node-a'), state: 'attached' as const, device: '/dev/xvdaa' }],
  });

  it.each<{ case: string; nodeA: Parameters<typeof node>[1]; mounted: boolean; detach: string; stage: (ec2: FakeBlockStorage) => void }>([
    {
      case: 'an ordinary detach (unmounted; EC2 reads may lag): the warning stands, nothing is attached before the next pass',
      nodeA: {},
      mounted: false,
      detach: 'ok',
      stage: () => undefined,
    },
    {
      case: 'a forced detach EC2 refused: the warning stands',
      nodeA: outOfService,
      mounted: true,
      detach: 'failed',
      stage: (ec2) => void (ec2.detachOutcome = { kind: 'failed', code: 'IncorrectState', message: 'no' }),
    },
    {
      case: 'a forced detach EC2 still shows attached when asked again: the warning stands',
      nodeA: outOfService,
      mounted: true,
      detach: 'ok',
      stage: (ec2) => void (ec2.volumes.set(V, onNodeA()), ec2.readLag.add(V)),
    },
  ])('$case', async ({ nodeA, mounted, detach, stage }) => {
    const { pass, ec2, kube } = harness(rescheduled(nodeA), [record(V, [attachment('node-a', { mounted })])]);
    stage(ec2);

    const report = await pass();

    expect(ec2.calls.filter((c) => c.startsWith('attach'))).toEqual([]);
    expect(ec2.calls.filter((c) => c.startsWith('detach'))).toEqual([`detach ${V}`]);
    expect(report.results.map((r) => [r.kind, r.outcome])).toEqual([
      ['unreport', 'ok'],
      ['detach', detach],
      ['multiAttachConflict', 'ok'],
    ]);
    expect(kube.events.map((e) => e.event.message)).toEqual([expect.stringContaining('Multi-Attach error')]);
    expect(report.converged).toBe(false);
  });
});

describe("the executor's progress and its guard against unexpected errors", () => {
  /**
   * An expired operation to resolve (V2), an attach (V), and a pod on node-a that wants V3 while it is
   * still attached to node-b: V3 is unreported and detached there, and a Multi-Attach conflict warned of.
   */
  const busy = () => {
    const cluster = podOnA();
    cluster.nodes[1] = node('node-b', { attached: [{ name: uname(vol(3)), devicePath: '/dev/xvdab' }] });
    cluster.pods.push(pod('web-0', { node: 'node-a', claims: ['cache'] }));
    cluster.pvcs.push(pvc('cache'));
    cluster.pvs.push(pv('pv-cache', { volumeId: vol(3) }));
    return harness(cluster, [
      record(vol(2), [attachment('node-b', { state: 'attaching' })], {
        operations: { volume: op('attach', 'node-b', { leaseExpiresAt: T0 - 1 }) },
      }),
      record(vol(3), [attachment('node-b', { mounted: false })]),
    ]);
  };

  it('counts the EC2-facing actions (resolves, detaches, attaches; not unreports or warnings) as they finish', async () => {
    const { pass, deps } = busy();
    const seen: [string, number, number][] = [];
    deps.progress = (phase, done, total) => void seen.push([phase, done, total]);

    const report = await pass();

    expect(report.actions.map((a) => a.kind)).toEqual(['resolve', 'unreport', 'detach', 'attach', 'multiAttachConflict']);
    expect(seen).toEqual([
      ['actions', 1, 3],
      ['actions', 2, 3],
      ['actions', 3, 3],
    ]);
  });

  it('fails only the action that threw, says which and why, and goes on with the rest (counted too)', async () => {
    const { pass, deps, ec2 } = busy();
    const errors: unknown[][] = [];
    deps.log = { ...deps.log, error: (...args: unknown[]) => void errors.push(args) };
    const seen: number[] = [];
    deps.progress = (_phase, done) => void seen.push(done);
    ec2.attach = () => Promise.reject(new Error('socket hang up'));

    const report = await pass();

    expect(report.results).toContainEqual({ kind: 'attach', volumeId: V, nodeName: 'node-a', outcome: 'failed', detail: 'socket hang up' });
    expect(report.results).toContainEqual(expect.objectContaining({ kind: 'detach', volumeId: vol(3), outcome: 'ok' }));
    expect(errors).toContainEqual([expect.any(String), { kind: 'attach', volumeId: V, nodeName: 'node-a', error: 'socket hang up' }]);
    expect(seen).toEqual([1, 2, 3]);
    expect(report.converged).toBe(false);
  });
});
