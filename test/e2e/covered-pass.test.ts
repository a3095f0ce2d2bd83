/**
 * Covered passes on the local stack, controller mode, each pass a cold invocation: while a live
 * watcher covers the cluster (its facts in the store) the minute's full pass lists nothing (it scans the store and verifies
 * a rolling slice); a watcher that goes away or gives up on a target, and the safety period, make
 * the next pass complete; an out-of-band detach is healed by a covered pass within VERIFY_SLICES
 * sync periods, by the node's targeted pass run in-process.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PassReport } from '../../lambda/reconcile/pass/types.js';
import { RunningClock } from '../../sandbox/clock.js';
import { startWorld, type World, type WorldVolume } from '../../sandbox/world.js';

const SLICES = 3;
const SYNC_MS = 61_000;
let world: World;
let clock: RunningClock;
let volumes: WorldVolume[];

beforeEach(async () => {
  clock = new RunningClock();
  world = await startWorld({ nodes: 2, clock, env: { VERIFY_SLICES: String(SLICES), COMPLETE_PASS_SECONDS: '300' } });
  volumes = [];
  for (let i = 0; i < 4; i++) {
    volumes.push(await world.createVolume({ name: `data-${i}` }));
    world.addPod(`db-${i}`, volumes[i] as WorldVolume, 'node-1');
  }
  expect(await pass()).toMatchObject({ coverage: { covered: false, why: 'no complete pass on record (a cold start)' }, converged: true });
});
afterEach(() => world.stop());

/** One scheduled full pass, in a fresh execution environment. */
const pass = (): Promise<PassReport> => world.invocation().fullPass({ deadline: clock.now() + 60_000 });
const lists = () => world.kube.requests().filter((r) => r.verb === 'list').length;
const calls = () => world.ec2.counters().calls;
const listed = () =>
  ((world.kube.get('Node', undefined, 'node-1') as { status: { volumesAttached?: unknown[] } }).status.volumesAttached ?? []).length;

/**
 * A live watcher as the store records it: a holder that watches and said so just now, and a
 * checkpoint for each kind controller mode watches. The coverage decision reads only these facts
 * (the watcher's own tests show it leaves them); no watcher runs, so every request is the pass's.
 */
async function watcherCovers(): Promise<void> {
  const watchers = world.invocation().ports.watchers;
  const now = clock.now();
  const lease = await watchers.readLease();
  const holder = { startedAt: now - 60_000, endsAt: now + 240_000, heartbeatAt: now, watching: true };
  await watchers.writeLease({ holders: { 'watcher-1': holder }, version: lease.version });
  for (const kind of ['pods', 'nodes'] as const) await watchers.saveCheckpoint(kind, { resourceVersion: '7', savedAt: now });
}

/** A sync period on; the watcher has said it is alive meanwhile. */
async function nextMinute(): Promise<void> {
  clock.advance(SYNC_MS);
  await watcherCovers();
}

describe('covered passes', () => {
  it('while a watcher covers, a pass asks Kubernetes nothing and unreports nothing; once the watcher falls silent, the next pass is complete', async () => {
    await nextMinute();
    world.kube.resetRequests();
    const covered = await pass();
    expect(covered).toMatchObject({ coverage: { covered: true, healed: 0 }, converged: true, verified: true, actions: [] });
    expect(world.kube.requests()).toEqual([]);
    expect(listed()).toBe(4);

    // No heartbeat for a sync period: the lease's holder is dead (30 s).
    clock.advance(SYNC_MS);
    const complete = await pass();
    expect(complete).toMatchObject({ coverage: { covered: false, why: 'no live watcher is watching' }, clusterComplete: true });
    expect(lists()).toBe(5);
  });

  it('a watcher that gave up on a target makes the next pass complete, and the one after covered again', async () => {
    await nextMinute();
    await world.invocation().ports.watchers.markGaveUp(clock.now());
    expect((await pass()).coverage).toEqual({ covered: false, why: 'a watcher gave up on a target since the last complete pass' });
    await nextMinute();
    expect((await pass()).coverage).toMatchObject({ covered: true });
  });

  it('the safety period makes a pass complete however well the watcher covers', async () => {
    await nextMinute();
    const coverage: boolean[] = [];
    for (let minute = 0; minute < 5; minute++) {
      coverage.push((await pass()).coverage?.covered === true);
      await nextMinute();
    }
    // Minutes 1–4 after the cold start are covered; the fifth is past COMPLETE_PASS_SECONDS (300 s).
    expect(coverage).toEqual([true, true, true, true, false]);
  });

  it(`an out-of-band detach is found and attached again by a covered pass within ${SLICES} sync periods`, async () => {
    await nextMinute();
    const lost = volumes[2] as WorldVolume;
    const instanceId = world.nodes[0]?.instanceId ?? '';
    const attachment = world.ec2.world.volumes.get(lost.volumeId)?.attachments.get(instanceId);
    Object.assign(attachment ?? {}, { phase: 'detach', since: clock.now(), stuck: false });
    clock.advance(1_000); // EC2's detach delay: the attachment is gone
    const before = calls().AttachVolume ?? 0;

    const healedBy: PassReport[] = [];
    for (let minute = 0; minute < SLICES && (calls().AttachVolume ?? 0) === before; minute++) {
      healedBy.push(await pass());
      if ((calls().AttachVolume ?? 0) === before) await nextMinute();
    }
    expect(calls().AttachVolume ?? 0).toBe(before + 1);
    expect(healedBy.at(-1)?.coverage).toEqual({ covered: true, watcher: expect.any(String) as string, healed: 1 });
    expect(world.ec2.world.volumes.get(lost.volumeId)?.attachments.get(instanceId)?.phase).toBe('attach');
    expect(listed()).toBe(4);
  });
});
