/** The fault scenario's model of its cluster, as the scenario, the cluster's changes and the themes share it. */
import type { GenNode, GenPod, GenVolume } from '../../sandbox/generate/model.js';

export interface FaultCluster {
  nodes: GenNode[];
  volumes: GenVolume[];
  pods: GenPod[];
  notReady: Set<string>;
  terminated: Set<string>;
  stopped: Set<string>;
  /** Nodes whose object is gone (the instance may still run). */
  deleted: Set<string>;
}
