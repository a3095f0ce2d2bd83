/**
 * The fault suite with watchers, in both modes, on the local stack (each watcher its own execution
 * environment; what they agree on is in the store): a watcher killed mid-change, a 410 on resume,
 * two watchers overlapping, and a watch stream that stalls without closing. The live oracle of the
 * mode judges every EC2 call and VolumeAttachment write as it happens; each case ends converged.
 * Story time moves with the stack's clock where a rule waits minutes (a dead watcher's lease).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { killable, type Killable } from './killable.js';
import { watcherWorld, type WatcherWorld } from './watcher-world.js';
import { eventually, startWatcher } from '../e2e/watcher/support.js';

const MODES = ['controller', 'attacher'] as const;
const LIFETIME_MS = 300_000;

let w: WatcherWorld | undefined;
afterEach(async () => {
  await w?.stop();
  w = undefined;
});

describe.each(MODES)('%s mode with watchers', (mode) => {
  it('a watcher killed right after AttachVolume: the next one resumes and finishes the change, attaching nothing twice', async () => {
    w = await watcherWorld(mode);
    let dying: Killable | undefined;
    const first = startWatcher(
      w.world.invocation({ wrapPorts: (ports) => (dying = killable(ports, { atCall: 0, afterEffect: true, method: 'attach' })).ports }),
      LIFETIME_MS,
    );
    void first.done;
    await w.watching();
    const volume = await w.world.createVolume({ name: 'data-0' });
    await w.change(volume, 'node-1');
    await eventually('the AttachVolume sent', () => (w?.calls().AttachVolume ?? 0) === 1);
    await dying?.killed;

    // The dead invocation's lease on the watchers and on the volume outlive it: the next tick's watcher
    // joins once it has gone silent, and finishes the change once the volume's lease has passed.
    w.world.clock.advance(LIFETIME_MS + 20_000);
    const second = startWatcher(w.world.invocation(), LIFETIME_MS);
    await eventually('attached and reported by the next watcher', () => w?.attached(volume, 'node-1') === true, 15_000);
    expect(w.calls().AttachVolume).toBe(1);
    expect(await second.stop()).toMatchObject({ joined: true });
    expect(w.verdict()).toEqual([]);
  });

  it('a 410 on resume: the checkpoint was compacted away, so the next watcher lists again and acts on what changed', async () => {
    w = await watcherWorld(mode);
    const first = startWatcher(w.world.invocation(), LIFETIME_MS);
    await w.watching();
    const before = await w.world.createVolume({ name: 'data-0' });
    await w.change(before, 'node-1');
    await eventually('the first change handled', () => w?.attached(before, 'node-1') === true);
    await first.stop();

    const after = await w.world.createVolume({ name: 'data-1' });
    await w.change(after, 'node-2');
    w.world.kube.compact();
    const second = startWatcher(w.world.invocation(), LIFETIME_MS);
    await eventually('the change made while nobody watched, handled', () => w?.attached(after, 'node-2') === true);

    // Every kind it watches answered 410 (an ERROR event, as the API server sends it) and was listed again.
    const kinds = mode === 'attacher' ? 1 : 2;
    expect(await second.stop()).toMatchObject({ joined: true, relists: kinds });
    expect(w.calls().AttachVolume).toBe(2);
    expect(w.verdict()).toEqual([]);
  });

  it('two watchers overlapping on the same changes: each change is attached once', async () => {
    w = await watcherWorld(mode);
    // The first is within its last minute: the next joins at once, and both watch for a while.
    const first = startWatcher(w.world.invocation(), 50_000);
    await w.watching();
    const volumes = await Promise.all([0, 1, 2].map((i) => w!.world.createVolume({ name: `data-${i}` })));
    const second = startWatcher(w.world.invocation(), LIFETIME_MS);
    for (const [i, volume] of volumes.entries()) await w.change(volume, `node-${(i % 2) + 1}`);
    await eventually('every change attached', () => volumes.every((v, i) => w?.attached(v, `node-${(i % 2) + 1}`) === true));

    expect(w.calls().AttachVolume).toBe(3);
    const [a, b] = [await first.stop(), await second.stop()];
    expect([a.joined, b.joined]).toEqual([true, true]);
    expect(w.verdict()).toEqual([]);
  });

  it('full passes while a watcher covers list nothing and act on nothing; once the watcher is gone the next one is complete and catches up', async () => {
    w = await watcherWorld(mode);
    const first = startWatcher(w.world.invocation(), LIFETIME_MS);
    await w.watching();
    const handled = await w.world.createVolume({ name: 'data-0' });
    await w.change(handled, 'node-1');
    await eventually('the watcher handled the change', () => w?.attached(handled, 'node-1') === true);
    await w.checkpointed();
    // No complete pass on record yet: the first full pass reads everything, the next are covered.
    expect((await w.fullPass()).coverage).toMatchObject({ covered: false });
    w.world.kube.resetRequests();
    const covered = await w.fullPass();
    expect(covered).toMatchObject({ coverage: { covered: true }, actions: [] });
    expect(w.world.kube.requests().filter((r) => r.verb === 'list')).toEqual([]);

    // The watcher ends and no successor joins: a change made now is the next full pass's to find.
    await first.stop();
    const unwatched = await w.world.createVolume({ name: 'data-1' });
    await w.change(unwatched, 'node-2');
    const complete = await w.fullPass();
    expect(complete.coverage).toEqual({ covered: false, why: 'no live watcher is watching' });
    await eventually('attached by the complete pass', () => w?.attached(unwatched, 'node-2') === true);
    expect(w.calls().AttachVolume).toBe(2);
    expect(w.verdict()).toEqual([]);
  });

  it('a watch that stalls without closing: the watcher notices past its stall bound, watches again and catches up', async () => {
    w = await watcherWorld(mode);
    const watcher = startWatcher(w.world.invocation(), LIFETIME_MS);
    await w.watching();
    const volume = await w.world.createVolume({ name: 'data-0' });
    expect(w.world.kube.stallWatches()).toBeGreaterThan(0);
    await w.change(volume, 'node-1');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(w.calls().AttachVolume ?? 0).toBe(0);

    w.world.clock.advance(46_000);
    await eventually('attached after the watcher cut the silent stream', () => w?.attached(volume, 'node-1') === true);
    expect((await watcher.stop()).stalls).toBeGreaterThan(0);
    expect(w.verdict()).toEqual([]);
  });
});
