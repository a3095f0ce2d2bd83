/**
 * Many invocations at once, each in its own execution environment (composition root, clients,
 * caches, limiter), as Lambda runs them: what they must agree on — locks and the device names of
 * an instance — lives in the store, so overlapping passes attach every volume exactly once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PassReport } from '../../lambda/reconcile/pass/types.js';
import { RunningClock } from '../../sandbox/clock.js';
import { startWorld, type World } from '../../sandbox/world.js';

let world: World;
beforeEach(async () => {
  world = await startWorld({ nodes: 4, clock: new RunningClock() });
});
afterEach(async () => world.stop());

async function podsOnEveryNode(count: number): Promise<string[]> {
  const volumeIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const volume = await world.createVolume({ name: `data-app-${i}` });
    world.addPod(`app-${i}`, volume, world.nodes[i % world.nodes.length]!.name);
    volumeIds.push(volume.volumeId);
  }
  return volumeIds;
}

describe('five overlapping full passes in separate execution environments', () => {
  it('20 pods on 4 nodes: every volume attached exactly once, on distinct device names, no "already in use"', async () => {
    const volumeIds = await podsOnEveryNode(20);
    const invocations = Array.from({ length: 5 }, () => world.invocation());

    const reports: PassReport[] = await Promise.all(invocations.map((c) => c.fullPass({ deadline: world.clock.now() + 30_000 })));

    const attaches = world.ec2.requests('AttachVolume').map((r) => r.params);
    for (const volumeId of volumeIds)
      expect(
        attaches.filter((p) => p.VolumeId === volumeId),
        volumeId,
      ).toHaveLength(1);
    const failures = reports.flatMap((r) => r.results).filter((r) => r.outcome === 'failed');
    expect(failures).toEqual([]);
    for (const node of world.nodes) {
      const devices = attaches.filter((p) => p.InstanceId === node.instanceId).map((p) => p.Device);
      expect(new Set(devices).size, node.name).toBe(devices.length);
    }
  });
});
