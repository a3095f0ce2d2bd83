/**
 * A generated cluster, independent of any sandbox: the nodes (EC2 instances), EBS volumes with
 * their PV/PVC, the pods of StatefulSets and Deployments that use them, and which volumes are
 * already attached where. `kube-objects.ts` and `seed.ts` turn it into sandbox state.
 */
import type { AccessMode } from '../../lambda/core/types.js';

export interface GenNode {
  name: string;
  instanceId: string;
  zone: string;
  instanceType: string;
}

interface GenClaim {
  namespace: string;
  name: string;
  uid: string;
}

export interface GenVolume {
  volumeId: string;
  zone: string;
  volumeType: 'gp3' | 'io2';
  sizeGiB: number;
  iops?: number;
  multiAttach: boolean;
  pvName: string;
  pvUid: string;
  claim: GenClaim;
  accessModes: AccessMode[];
  volumeMode: 'Filesystem' | 'Block';
}

export interface GenOwner {
  kind: 'StatefulSet' | 'ReplicaSet';
  name: string;
  uid: string;
}

export interface GenPod {
  namespace: string;
  name: string;
  uid: string;
  app: string;
  owner: GenOwner;
  /** Unset: not scheduled yet (Pending, waiting for the scheduler). */
  nodeName?: string;
  /** PVC names in the pod's namespace. */
  claims: string[];
  /** Running: its volumes are attached and mounted. Pending: scheduled or not, volumes not attached yet. */
  phase: 'Running' | 'Pending';
}

/** A volume attached (and mounted) before the controller starts, as kube-controller-manager left it. */
export interface GenAttachment {
  volumeId: string;
  nodeName: string;
  device: string;
}

export interface GeneratedCluster {
  seed: number;
  zones: string[];
  nodes: GenNode[];
  volumes: GenVolume[];
  pods: GenPod[];
  attached: GenAttachment[];
}

export interface ClusterOptions {
  seed: number;
  nodes: number;
  zones?: string[];
  /** EBS volumes per node used by running stateful pods (default 4). */
  volumesPerNode?: number;
  /** Pods per node in all, the stateless rest included (default 10). */
  podsPerNode?: number;
  /** Extra stateful pods already scheduled whose volumes are not attached yet (default 0). */
  pendingPods?: number;
  /** Extra stateful pods the scheduler has not placed yet (default 0). */
  unscheduledPods?: number;
  /** Replicas of the Deployment sharing one io2 Multi-Attach RWX block volume (default 3; 0: none). */
  multiAttachReaders?: number;
}

export const DEFAULT_ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
