/**
 * An instance is stopped and its OS hangs on the way down (EC2 shows it `stopping` for minutes, as
 * when a shutdown script or an unresponsive filesystem holds it): the kubelet is gone early, so
 * the node turns NotReady after the node-monitor grace period, its pods were terminated by the
 * graceful node shutdown, and its volumes are still in `volumesInUse`, mounted. Only `stopped`
 * proves the OS no longer writes: until then those volumes wait for maxWaitForUnmount like any
 * mounted volume on a NotReady node (invariant 2).
 */
import { CALM_STEP, busiestNodes, type Theme } from './theme.js';

/** How long the shutdown hangs: longer than the steps that follow take. */
const HUNG_STOP_MS = 10 * 60_000;
/** kube-controller-manager's default node-monitor-grace-period (40 s), and a little more. */
const GRACE_MS = 50_000;

export const STOPPING_HANGS: Theme = {
  name: 'stopping-hangs',
  shape: { nodes: [3, 4], volumes: [3, 5], podChance: 1 },
  step(step, { world, cluster }) {
    const hung = [...cluster.stopped][0];
    switch (step) {
      case 1:
      case 2:
        return CALM_STEP;
      case 3: {
        const node = busiestNodes(cluster)[0];
        if (node === undefined) return undefined;
        world.ec2.world.config.delays.instanceStopMs = HUNG_STOP_MS;
        return { ...CALM_STEP, changes: [{ kind: 'stop', node: node.name }], advance: GRACE_MS };
      }
      case 4:
        return hung === undefined ? undefined : { ...CALM_STEP, changes: [{ kind: 'notReady', node: hung }] };
      case 5:
        return CALM_STEP;
      default:
        return undefined;
    }
  },
};
