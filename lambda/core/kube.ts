/**
 * The slice of Kubernetes objects the core reads, as plain structural types.
 * The core imports no client library: adapters hand it these shapes (client-node's
 * objects fit them; timestamps may arrive as Date or RFC 3339 string).
 */

type Timestamp = string | Date;

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  deletionTimestamp?: Timestamp | null;
  finalizers?: string[];
  /** Generic ephemeral PVCs name their pod here (controller: true) so a same-named PVC is not mistaken for it. */
  ownerReferences?: { uid: string; kind?: string; name?: string; controller?: boolean }[] | null;
}

export interface KubeTaint {
  key: string;
  value?: string;
  effect: string;
}

export interface KubeNodeCondition {
  type: string;
  status: string;
  lastHeartbeatTime?: Timestamp;
  lastTransitionTime?: Timestamp;
}

/** `{name, devicePath}` entries of `node.status.volumesAttached`. */
export interface AttachedVolume {
  name: string;
  devicePath: string;
}

export interface KubeNode {
  metadata: ObjectMeta;
  spec?: { providerID?: string; taints?: KubeTaint[] | null };
  status?: {
    conditions?: KubeNodeCondition[] | null;
    volumesInUse?: string[] | null;
    volumesAttached?: AttachedVolume[] | null;
  };
}

interface KubeContainerState {
  waiting?: object | null;
  running?: object | null;
  terminated?: object | null;
}

export interface KubeContainerStatus {
  name: string;
  state?: KubeContainerState | null;
}

export interface AwsElasticBlockStoreSource {
  volumeID: string;
  fsType?: string;
  partition?: number;
  readOnly?: boolean;
}

export interface CsiPersistentVolumeSource {
  driver: string;
  volumeHandle: string;
  readOnly?: boolean;
  fsType?: string;
}

export interface KubePodVolume {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean } | null;
  awsElasticBlockStore?: AwsElasticBlockStoreSource | null;
  /** Generic ephemeral volumes are PVCs named `<pod>-<volume>`. */
  ephemeral?: object | null;
  [other: string]: unknown;
}

export interface KubePod {
  metadata: ObjectMeta;
  spec?: { nodeName?: string; volumes?: KubePodVolume[] | null };
  status?: {
    phase?: string;
    containerStatuses?: KubeContainerStatus[] | null;
    initContainerStatuses?: KubeContainerStatus[] | null;
    ephemeralContainerStatuses?: KubeContainerStatus[] | null;
  };
}

export interface KubePvc {
  metadata: ObjectMeta;
  spec?: { volumeName?: string; accessModes?: string[] | null; volumeMode?: string };
  status?: { phase?: string; accessModes?: string[] | null };
}

export interface KubePv {
  metadata: ObjectMeta;
  spec?: {
    accessModes?: string[] | null;
    volumeMode?: string;
    claimRef?: { namespace?: string; name?: string; uid?: string } | null;
    csi?: CsiPersistentVolumeSource | null;
    awsElasticBlockStore?: AwsElasticBlockStoreSource | null;
    [other: string]: unknown;
  };
  status?: { phase?: string };
}

export interface KubeVolumeAttachment {
  metadata: ObjectMeta;
  spec: {
    attacher: string;
    nodeName: string;
    source: {
      persistentVolumeName?: string | null;
      inlineVolumeSpec?: { csi?: CsiPersistentVolumeSource | null; accessModes?: string[] | null; volumeMode?: string } | null;
    };
  };
  status?: {
    attached: boolean;
    attachmentMetadata?: Record<string, string> | null;
    attachError?: { time?: Timestamp; message?: string; errorCode?: number } | null;
    detachError?: { time?: Timestamp; message?: string; errorCode?: number } | null;
  } | null;
}

/** The node plugins registered on a node; the EBS one's `nodeID` is the node's EC2 instance id. */
export interface KubeCsiNode {
  metadata: ObjectMeta;
  spec?: { drivers?: { name: string; nodeID?: string | null }[] | null };
}

/** Everything a full pass reads from the cluster, every page of every list. */
export interface ClusterSnapshot {
  nodes: KubeNode[];
  pods: KubePod[];
  pvcs: KubePvc[];
  pvs: KubePv[];
  volumeAttachments: KubeVolumeAttachment[];
}
