/**
 * Attacher mode with a watcher, end to end on the local stack: kcm (the test playing it) creates a
 * VolumeAttachment and the watcher attaches it, with no event exporter and no full pass; kcm deletes
 * it and the watcher detaches it. The checkpoint in the store lets the next watcher resume.
 */
import { describe, expect, it } from 'vitest';
import { ATTACHER_FINALIZER } from '../../../lambda/core/attacher/names.js';
import type { World } from '../../../sandbox/world.js';
import { useAttacherWorld } from '../attacher/fixture.js';
import type { KcmPlayer } from '../attacher/kcm-player.js';
import { eventually, startWatcher } from './support.js';

let world: World;
let kcm: KcmPlayer;
useAttacherWorld((started) => ({ world, kcm } = started));

const calls = () => world.ec2.counters().calls;
const namedReads = () =>
  world.kube.requests().filter((r) => r.verb === 'get' && ['persistentvolumes', 'csinodes', 'nodes'].includes(r.resource));

describe('attacher mode: the watcher', () => {
  it('attaches a VolumeAttachment kcm creates and detaches it once kcm deletes it, with no other trigger', async () => {
    const watcher = startWatcher(world.invocation());
    const volume = await world.createVolume({ name: 'data-db-0' });
    await eventually('the watcher watches', () => world.kube.requests().some((r) => r.verb === 'watch'));

    const name = await kcm.attach(volume, 'node-1');
    await eventually('attached and reported', () => kcm.va(name)?.status?.attached === true);
    expect(calls()).toMatchObject({ AttachVolume: 1 });
    expect(kcm.va(name)?.metadata.finalizers).toEqual([ATTACHER_FINALIZER]);
    // The attach read nothing by name: the PV, CSINode and Node came from the caches (a detach reads them live).
    expect(namedReads()).toEqual([]);

    await kcm.detach(name);
    await eventually('detached and let go', () => kcm.va(name) === undefined);
    expect(calls()).toMatchObject({ DetachVolume: 1 });

    const report = await watcher.stop();
    expect(report).toMatchObject({ joined: true, why: 'deadline', relists: 1, cacheLists: 3, failedPasses: 0, abandoned: 0 });
    expect(report.passes).toBeGreaterThanOrEqual(2);
    // No full pass, no Scheduled event: the watch alone drove both. Its caches were each listed once.
    expect(world.kube.requests().filter((r) => r.verb === 'list' && r.resource !== 'volumeattachments')).toHaveLength(3);
  });

  it('the next watcher resumes from the checkpoint without listing the VolumeAttachments, and acts on what changed meanwhile', async () => {
    const first = startWatcher(world.invocation());
    await eventually('the first watches', () => world.kube.requests().some((r) => r.verb === 'watch'));
    await first.stop();
    const volume = await world.createVolume();
    const name = await kcm.attach(volume, 'node-2');
    world.kube.resetRequests();

    const second = startWatcher(world.invocation());
    await eventually('attached by the second watcher', () => kcm.va(name)?.status?.attached === true);

    // Only its caches are listed: an informer's cache needs the whole list.
    expect(world.kube.requests().filter((r) => r.verb === 'list' && r.resource === 'volumeattachments')).toEqual([]);
    expect(await second.stop()).toMatchObject({ joined: true, relists: 0, cacheLists: 3 });
  });

  it('a second watcher while the first has minutes left ends at once', async () => {
    const first = startWatcher(world.invocation());
    await eventually('the first watches', () => world.kube.requests().some((r) => r.verb === 'watch'));

    const second = await startWatcher(world.invocation()).done;

    expect(second).toMatchObject({ joined: false, why: 'a live watcher is not within its last minute', passes: 0 });
    await first.stop();
  });
});
