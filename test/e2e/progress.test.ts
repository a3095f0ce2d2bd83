/** Long work reports progress through the composition root's `progress` seam: takeover seeding and a pass's actions. */
import { describe, expect, it } from 'vitest';
import type { KubeNode } from '../../lambda/core/kube.js';
import { startWorld } from '../../sandbox/world.js';

describe('progress of a pass', () => {
  it('the takeover seeding and the actions report items done / total', async () => {
    const seen: string[] = [];
    const world = await startWorld({ nodes: 2, controller: { progress: (phase, done, total) => seen.push(`${phase} ${done}/${total}`) } });
    try {
      const taken = await world.createVolume({ name: 'data-taken' });
      const node = world.kube.get('Node', undefined, 'node-2') as KubeNode;
      world.kube.seed([{ ...node, status: { ...node.status, volumesAttached: [{ name: taken.uniqueName, devicePath: '/dev/xvdaa' }] } }]);
      for (const name of ['db-0', 'db-1']) world.addPod(name, await world.createVolume({ name: `data-${name}` }), 'node-1');

      await world.controller.fullPass({ deadline: world.clock.now() + 30_000 });

      expect(seen).toEqual(expect.arrayContaining(['seeding 1/1', 'actions 2/2']));
      expect(seen.filter((line) => line.startsWith('actions')).map((line) => line.split(' ')[1])).toContain('1/2');
    } finally {
      await world.stop();
    }
  });
});
