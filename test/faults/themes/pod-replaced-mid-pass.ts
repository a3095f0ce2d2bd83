/**
 * A StatefulSet pod is replaced on the same node: the old pod is deleted, its volume unmounts
 * and becomes unneeded, and the new pod is created on that node while a pass is about to detach
 * the volume (between its read and its DetachVolume, at its node-status write). The kubelet
 * mounts the volume again (still attached and listed), so `volumesInUse` changed since the pass
 * read it and only the live re-check before the detach stands in the way (invariant 2).
 */
import { SMALL_CLUSTER } from '../cluster.js';
import { busiestNodes, CALM_STEP, onSettledCluster, type Theme } from './theme.js';

export const POD_REPLACED_MID_PASS: Theme = {
  name: 'pod-replaced-mid-pass',
  shape: { ...SMALL_CLUSTER, podChance: 1 },
  step: onSettledCluster((step, { cluster }) => {
    if (step === 1) {
      const node = busiestNodes(cluster)[0];
      const pod = cluster.pods.find((p) => p.nodeName === node?.name && p.claims[0] !== 'shared-block');
      // Two minutes, no pass: most unmounts finish, so the next pass finds the volume unneeded and unmounted.
      return { ...CALM_STEP, changes: pod ? [{ kind: 'delete', pod: pod.name }] : [], passes: [], advance: 120_000 };
    }
    // The replacement comes at the pass's node-status write, for the one volume left unclaimed on that node.
    return step === 2 ? { ...CALM_STEP, restart: { atRequest: 'unreport', pick: 0 } } : undefined;
  }),
};
