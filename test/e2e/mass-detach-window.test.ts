/**
 * The mass-detach guard across overlapping passes: each pass runs in its own execution
 * environment, so only a window kept in the store can stop two of them from each detaching the
 * allowed fraction (DESIGN §5: the mass-detach window lives in the store).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PassReport } from '../../lambda/reconcile/pass/types.js';
import { RunningClock } from '../../sandbox/clock.js';
import { startWorld, type World } from '../../sandbox/world.js';

const PODS = 24;
let world: World;
beforeEach(async () => {
  world = await startWorld({ nodes: 4, clock: new RunningClock() });
});
afterEach(async () => world.stop());

/** PODS pods spread over the nodes, every volume attached and then no longer needed (pods gone, unmounted). */
async function everyVolumeUnneeded(): Promise<void> {
  for (let i = 0; i < PODS; i++) world.addPod(`app-${i}`, await world.createVolume({ name: `data-app-${i}` }), world.nodes[i % 4]!.name);
  await world.controller.fullPass({ deadline: world.clock.now() + 30_000 });
  expect(world.ec2.requests('AttachVolume')).toHaveLength(PODS);
  for (let i = 0; i < PODS; i++) world.kube.kubelet.deletePod('default', `app-${i}`);
  for (const node of world.nodes) world.kube.kubelet.setVolumesInUse(node.name, []);
}

const pass = (controller = world.invocation()) => controller.fullPass({ deadline: world.clock.now() + 30_000 });

describe('the mass-detach window is shared through the store', () => {
  it('a pass started while another is detaching adds no detach beyond the fraction of the window (24 attached, 0.5: 12)', async () => {
    await everyVolumeUnneeded();
    let second: Promise<PassReport> | undefined;
    const stopWatching = world.ec2.onAction({ after: (action) => void (action === 'DetachVolume' && (second ??= pass())) });

    await pass();
    const late = await second!;
    stopWatching();

    // The first pass may detach fewer than its 12: the late pass's node report can list a volume again (then it waits).
    expect(world.ec2.requests('DetachVolume').length).toBeLessThanOrEqual(12);
    expect(late.results.filter((r) => r.kind === 'detach')).toEqual([]);
    expect(late.heldBack.length).toBeGreaterThan(0);
  });

  it('back-to-back passes within the window: the second detaches nothing more', async () => {
    await everyVolumeUnneeded();

    await pass();
    const second = await pass();

    expect(world.ec2.requests('DetachVolume')).toHaveLength(12);
    expect(second.heldBack).toHaveLength(12);
  });
});
