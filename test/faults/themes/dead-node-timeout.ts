/**
 * A node dies with its volumes mounted; 300 s later taint-based eviction deletes its pods (their
 * owners start them on a Ready node), and the next full pass comes exactly maxWaitForUnmount
 * after that one, then another a little later. Upstream's reconciler force-detaches only once
 * the wait is strictly over, so the pass at exactly the limit must still wait (invariant 2's
 * boundary); the pass after it may go.
 */
import { SMALL_CLUSTER } from '../cluster.js';
import { MAX_WAIT_FOR_UNMOUNT_MS } from '../rig.js';
import { busiestNodeDies, CALM_STEP, onSettledCluster, type Theme } from './theme.js';

export const DEAD_NODE_AT_TIMEOUT: Theme = {
  name: 'dead-node-at-unmount-timeout',
  shape: { ...SMALL_CLUSTER, podChance: 1 },
  step: onSettledCluster((step, { cluster }) => {
    if (step === 1) return busiestNodeDies(cluster);
    // The pods are evicted as this step begins; its pass starts the unmount timeout.
    if (step === 2) return { ...CALM_STEP, advance: MAX_WAIT_FOR_UNMOUNT_MS };
    return step === 3 ? CALM_STEP : undefined;
  }),
};
