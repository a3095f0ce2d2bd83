/**
 * Controller mode with a watcher, end to end on the local stack: a pod bound to a node is attached
 * from its own change, with no event exporter and no full pass; its volume is detached once the pod
 * is gone and the kubelet no longer uses it (the node's `volumesInUse` shrinking is the signal).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunningClock } from '../../../sandbox/clock.js';
import { startWorld, type World } from '../../../sandbox/world.js';
import { eventually, startWatcher } from './support.js';

let world: World;
beforeEach(async () => {
  world = await startWorld({ nodes: 2, clock: new RunningClock() });
});
afterEach(() => world.stop());

const calls = () => world.ec2.counters().calls;
const node = (name: string) => world.kube.get('Node', undefined, name) as { status: { volumesAttached?: { name: string }[] } };
const reported = (name: string, uniqueName: string) => (node(name).status.volumesAttached ?? []).some((v) => v.name === uniqueName);

describe('controller mode: the watcher', () => {
  it('attaches a pod bound to its node, and detaches after the pod is gone and the kubelet unmounted', async () => {
    const watcher = startWatcher(world.invocation());
    const volume = await world.createVolume({ name: 'data-db-0' });
    await eventually('the watcher watches pods and nodes', () => world.kube.requests().filter((r) => r.verb === 'watch').length >= 2);

    world.addPod('db-0', volume, 'node-1', 'Pending');
    await eventually('attached and reported on node-1', () => reported('node-1', volume.uniqueName));
    expect(calls()).toMatchObject({ AttachVolume: 1 });
    world.kube.kubelet.setVolumesInUse('node-1', [volume.uniqueName]);
    world.kube.kubelet.setPodPhase('default', 'db-0', 'Running');

    world.kube.kubelet.deletePod('default', 'db-0', { graceful: true });
    world.kube.kubelet.deletePod('default', 'db-0');
    // Mounted still: nothing is detached until the kubelet lets go.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls().DetachVolume ?? 0).toBe(0);

    world.kube.kubelet.setVolumesInUse('node-1', []);
    await eventually('detached and unreported', () => (calls().DetachVolume ?? 0) === 1 && !reported('node-1', volume.uniqueName));

    const report = await watcher.stop();
    expect(report).toMatchObject({ joined: true, relists: 2, failedPasses: 0, abandoned: 0 });
    expect(world.kube.requests().filter((r) => r.verb === 'list' && !['pods', 'nodes'].includes(r.resource))).toEqual([]);
  });

  it('a running pod and a node whose volumes are all in use ask for nothing', async () => {
    const volume = await world.createVolume();
    world.addPod('web-0', volume, 'node-2');
    const watcher = startWatcher(world.invocation());
    await eventually('the watcher watches', () => world.kube.requests().filter((r) => r.verb === 'watch').length >= 2);
    world.kube.kubelet.setReady('node-2', true);

    const report = await watcher.stop();

    expect(report).toMatchObject({ actionable: 0, passes: 0 });
    expect(report.changes).toBeGreaterThanOrEqual(3);
  });
});
