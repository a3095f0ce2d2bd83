/**
 * A node dies with its volumes listed and mounted; its pods are evicted and an administrator
 * taints it out-of-service, so a pass force-detaches its volumes after taking them off the node's
 * list. Just then the API server stumbles on that node (an admission webhook refusing the
 * `nodes/status` write, etcd failing it and the reads after it): the list cannot be written and
 * the node cannot be read back. A detach whose unreport failed must wait (invariant 5).
 */
import type { Random } from '../../../sandbox/generate/random.js';
import { SMALL_CLUSTER } from '../cluster.js';
import { EVICTION_AFTER_MS } from '../eviction.js';
import type { World } from '../rig.js';
import { busiestNodes, CALM_STEP, type ArmedEvent, type Theme } from './theme.js';

/** At the first `nodes/<node>/status` write: that write fails (403 or 500), and so do the node's next two reads. */
export function armApiBlip(world: World, nodeName: string, random: Random): ArmedEvent {
  const writeCode = random.pick([403, 500]);
  let note: string | undefined;
  const stop = world.kube.onRequest({
    before: (info) => {
      const write = info.resource === 'nodes' && info.subresource === 'status' && info.verb === 'patch' && info.name === nodeName;
      if (!write || note !== undefined) return;
      world.kube.faults.failNext({ method: 'PATCH', path: `/api/v1/nodes/${nodeName}/status` }, 1, writeCode);
      world.kube.faults.failNext({ method: 'GET', path: `/api/v1/nodes/${nodeName}` }, 2, 500);
      note = `API blip on ${nodeName}: its status write answered ${writeCode}, its next reads 500`;
    },
  });
  return { stop, note: () => note };
}

export const API_BLIP_AT_UNREPORT: Theme = {
  name: 'api-blip-at-unreport',
  shape: { ...SMALL_CLUSTER, podChance: 1 },
  step(step, { cluster }) {
    // The node step 3 took down: the only NotReady one, as the steps before change nothing.
    const dead = [...cluster.notReady][0];
    switch (step) {
      case 1:
      case 2:
        return CALM_STEP;
      case 3: {
        const node = busiestNodes(cluster)[0];
        return { ...CALM_STEP, changes: node ? [{ kind: 'notReady', node: node.name }] : [], advance: EVICTION_AFTER_MS };
      }
      case 4:
        if (dead === undefined) return undefined;
        return {
          ...CALM_STEP,
          changes: [{ kind: 'outOfService', node: dead }],
          arm: ({ world, random }) => armApiBlip(world, dead, random),
        };
      default:
        return undefined;
    }
  },
};
