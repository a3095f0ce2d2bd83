/**
 * A node dies with its volumes mounted; 300 s later taint-based eviction deletes its pods (their
 * owners start them on a Ready node), and the next full pass comes exactly maxWaitForUnmount
 * after that one, then another a little later. Upstream's reconciler force-detaches only once
 * the wait is strictly over, so the pass at exactly the limit must still wait (invariant 2's
 * boundary); the pass after it may go.
 */
import { SMALL_CLUSTER } from '../cluster.js';
import { EVICTION_AFTER_MS } from '../eviction.js';
import { MAX_WAIT_FOR_UNMOUNT_MS } from '../rig.js';
import { busiestNodes, CALM_STEP, type Theme } from './theme.js';

export const DEAD_NODE_AT_TIMEOUT: Theme = {
  name: 'dead-node-at-unmount-timeout',
  shape: { ...SMALL_CLUSTER, podChance: 1 },
  step(step, { cluster }) {
    switch (step) {
      case 1:
      case 2:
        return CALM_STEP;
      case 3: {
        const node = busiestNodes(cluster)[0];
        return { ...CALM_STEP, changes: node ? [{ kind: 'notReady', node: node.name }] : [], advance: EVICTION_AFTER_MS };
      }
      case 4:
        return { ...CALM_STEP, advance: MAX_WAIT_FOR_UNMOUNT_MS };
      case 5:
        return CALM_STEP;
      default:
        return undefined;
    }
  },
};
