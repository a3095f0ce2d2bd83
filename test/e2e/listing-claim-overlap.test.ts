/**
 * Fault seed 332 as a scene: a full pass has attached a volume and holds the listing claim to add
 * it to its node's list, but its node-status write has not landed yet; meanwhile the pod leaves and
 * a targeted pass (its own execution environment) unreports the volume and would detach it. The
 * claim is the full pass's, so the unreport must not end it: the detach waits, and the full pass's
 * late write never lists a volume EC2 is taking away (invariant 5). A later pass detaches it.
 */
import { describe, expect, it } from 'vitest';
import type { Controller } from '../../lambda/composition.js';
import type { KubeNode } from '../../lambda/core/kube.js';
import type { Ports } from '../../lambda/composition.js';
import type { RunningClock } from '../../sandbox/clock.js';
import { reportedIsAttached } from '../../sandbox/oracle/checks.js';
import { readTruth } from '../../sandbox/oracle/truth.js';
import type { World, WorldVolume } from '../../sandbox/world.js';
import { useWorld } from './world-fixture.js';

let world: World;
let clock: RunningClock;
useWorld((started) => ({ world, clock } = started));

const budget = () => ({ deadline: clock.now() + 30_000 });

/** An execution environment whose first node-status write waits until `release` is called. */
function heldAtNodeStatus(): { controller: Controller; reached: Promise<void>; release: () => void } {
  let release: () => void = () => undefined;
  let reach: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const wrapPorts = (ports: Ports): Ports => {
    const setVolumesAttached: Ports['cluster']['setVolumesAttached'] = async (...args) => {
      reach();
      await released;
      return ports.cluster.setVolumesAttached(...args);
    };
    return { ...ports, cluster: Object.assign(Object.create(ports.cluster) as Ports['cluster'], { setVolumesAttached }) };
  };
  return { controller: world.invocation({ wrapPorts }), reached, release };
}

const detachesOf = (volume: WorldVolume) => world.ec2.requests('DetachVolume').filter((r) => r.params.VolumeId === volume.volumeId);

describe('a listing claim held by a full pass while a targeted pass unreports the volume', () => {
  it('keeps the detach waiting, so the late node-status write lists only an attached volume', async () => {
    const volume = await world.createVolume({ name: 'data-app-0' });
    world.addPod('app-0', volume, 'node-1');
    const lister = heldAtNodeStatus();
    const full = lister.controller.fullPass(budget());
    await lister.reached; // attached, claimed, not yet listed

    world.kube.kubelet.deletePod(volume.namespace, 'app-0');
    const targeted = await world.invocation().targetedPass({ kind: 'volume', volumeId: volume.volumeId }, budget());
    lister.release();
    await full;

    expect(reportedIsAttached(readTruth(world.ec2, world.kube))).toEqual([]);
    expect(detachesOf(volume)).toEqual([]);
    expect(targeted.results.filter((r) => r.kind === 'detach')).toEqual([expect.objectContaining({ outcome: 'deferred' })]);

    const later = await world.invocation().fullPass(budget());
    expect(later.results).toContainEqual(expect.objectContaining({ kind: 'detach', volumeId: volume.volumeId, outcome: 'ok' }));
    expect(reportedIsAttached(readTruth(world.ec2, world.kube))).toEqual([]);
  });

  it("two listers: the first one's write ends only its own claim, so the detach still waits for the second", async () => {
    const volume = await world.createVolume({ name: 'data-app-0' });
    world.addPod('app-0', volume, 'node-1');
    await world.invocation().fullPass(budget()); // attached; its list written
    // The entry is lost (another writer's whole-list write, say): both passes below will add it again.
    const node = world.kube.get('Node', undefined, 'node-1') as KubeNode;
    world.kube.seed([{ ...node, status: { ...node.status, volumesAttached: [] } }]);
    const [first, second] = [heldAtNodeStatus(), heldAtNodeStatus()];
    const passes = [first.controller.fullPass(budget()), second.controller.fullPass(budget())];
    await Promise.all([first.reached, second.reached]); // both claimed the listing, neither wrote
    first.release();
    await passes[0];

    world.kube.kubelet.deletePod(volume.namespace, 'app-0');
    await world.invocation().targetedPass({ kind: 'volume', volumeId: volume.volumeId }, budget());
    second.release();
    await passes[1];

    expect(reportedIsAttached(readTruth(world.ec2, world.kube))).toEqual([]);
    expect(detachesOf(volume)).toEqual([]);
  });
});
