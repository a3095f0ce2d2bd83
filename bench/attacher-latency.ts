/**
 * Event → AttachVolume in attacher mode (as on EKS): kcm has created the pod's VolumeAttachment by
 * the time the pod's `Scheduled` event reaches the cluster-event handler, which reads the pod,
 * its claim and volume, the VolumeAttachment by its computed name (with the node beside it), and
 * verifies against EC2 before AttachVolume. Traced like controller mode's path (latency.ts) in a
 * small world of its own: the path's length does not depend on the cluster's size.
 */
import type { KubePod } from '../lambda/core/kube.js';
import { RunningClock } from '../sandbox/clock.js';
import { startWorld, type World } from '../sandbox/world.js';
import { measureEventLatency, type EventLatency, type SchedulePod } from './latency.js';

const NODES = 3;
/** Sandbox time between samples: the client's limiter (20 QPS, burst 30) starts each one full, as for a lone event. */
const SAMPLE_SPACING_MS = 2_000;

function scheduleWithKcm(world: World, clock: RunningClock): SchedulePod {
  return async (n) => {
    clock.advance(SAMPLE_SPACING_MS);
    const node = world.nodes[n % world.nodes.length];
    if (node === undefined) throw new Error('the world has no nodes');
    const volume = await world.createVolume({ name: `data-latency-${n}`, namespace: 'bench' });
    const name = `latency-${n}`;
    world.addPod(name, volume, node.name);
    world.kcm?.step(); // kcm creates the VolumeAttachment, as it does within a second of scheduling
    const pod = world.kube.get('Pod', 'bench', name) as KubePod;
    return { namespace: 'bench', name, uid: pod.metadata.uid ?? '', nodeName: node.name };
  };
}

export async function measureAttacherEventLatency(): Promise<EventLatency> {
  const clock = new RunningClock();
  const world = await startWorld({ nodes: NODES, clock, mode: 'attacher', simulateKcm: true });
  try {
    return await measureEventLatency(world, world.handlers(), scheduleWithKcm(world, clock));
  } finally {
    await world.stop();
  }
}
