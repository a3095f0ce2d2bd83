/**
 * The controller's vocabulary (DESIGN §2). Every layer speaks in these types;
 * the core never sees an SDK type or an AWS error code.
 */
import type { AttachedVolume } from './kube.js';
import type { SkipCode } from './reasons.js';

/** EBS volume id: `vol-` + 8 or 17 lowercase hex characters. */
export type VolumeId = string;
/** The name the kubelet expects: `kubernetes.io/csi/ebs.csi.aws.com^vol-…`. */
export type UniqueVolumeName = string;
export type NodeName = string;
/** EC2 instance id: `i-` + 8 or 17 hex characters. */
export type InstanceId = string;

export const EBS_CSI_DRIVER = 'ebs.csi.aws.com';
export const UNIQUE_NAME_PREFIX = `kubernetes.io/csi/${EBS_CSI_DRIVER}^`;

export type AccessMode = 'ReadWriteOnce' | 'ReadOnlyMany' | 'ReadWriteMany' | 'ReadWriteOncePod';

export interface PodRef {
  namespace: string;
  name: string;
  uid: string;
}

/** Where a desired volume came from: a bound PV, or a volume written inline in the pod spec. */
export type VolumeSource = { kind: 'pv'; pvName: string } | { kind: 'inline'; podVolumeName: string };

/** One (volume, node) pair that must be attached, with the pods that need it. */
export interface DesiredAttachment {
  volumeId: VolumeId;
  uniqueName: UniqueVolumeName;
  nodeName: NodeName;
  instanceId: InstanceId;
  pods: PodRef[];
  accessModes: AccessMode[];
  /** False for exclusive volumes (only RWO / RWOP): they may be attached to one node at a time. */
  multiAttach: boolean;
  source: VolumeSource;
  /** Attacher mode: the VolumeAttachment kcm made for this pair (pods are kcm's business there). */
  volumeAttachment?: string;
}

/** An event for the pods of a volume (the shape the Cluster port records; texts in events.ts). */
export interface VolumeEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** A pod volume the desired state does not include, and why (shown to operators). */
export interface SkippedVolume {
  pod: PodRef;
  podVolumeName: string;
  /** The node the pod is scheduled on. */
  nodeName: NodeName;
  /** The EBS volume, when it was resolved (the node was the obstacle). */
  volumeId?: VolumeId;
  code: SkipCode;
  reason: string;
  /** The event the pod gets: upstream's FailedAttachVolume where no attach can succeed (an invalid volume id). */
  event?: VolumeEvent;
}

/** What the core needs to know about a node, read from its object (and EC2). */
export interface NodeView {
  name: NodeName;
  /** From `spec.providerID`; undefined when the id is missing or malformed (see `problems`). */
  instanceId?: InstanceId;
  zone?: string;
  /** Carries `volumes.kubernetes.io/controller-managed-attach-detach`. */
  managed: boolean;
  /** Condition Ready is True. */
  ready: boolean;
  /** Carries the `node.kubernetes.io/out-of-service` taint. */
  outOfService: boolean;
  /** `status.volumesInUse`: volumes the kubelet says are mounted. */
  volumesInUse: UniqueVolumeName[];
  /** `status.volumesAttached`: what the node object currently reports. */
  volumesAttached: AttachedVolume[];
}

export interface DesiredState {
  /** One entry per (volume, node), sorted by volume id then node name. */
  attachments: DesiredAttachment[];
  nodes: Map<NodeName, NodeView>;
  skipped: SkippedVolume[];
  /** Malformed objects the builder passed over, each with a clear message. */
  problems: string[];
  /**
   * False when any input was missing or unreadable: absence of a pod is then not
   * evidence that a volume is unneeded, so the plan detaches nothing (invariant 3).
   */
  complete: boolean;
  /**
   * Set for targeted passes: only these volumes / nodes are known. The plan leaves
   * everything else alone.
   */
  scope?: { volumes: VolumeId[]; nodes: NodeName[] };
  /** Who decided it: the pods (we detach what none needs, once safe) or kcm (we detach exactly what it released). */
  decidedBy: DecidedBy;
}

/**
 * Controller mode: the pods decide, and we are the attach/detach controller. Attacher mode: kcm
 * decided through its VolumeAttachments; only the (volume, node) pairs (`pairKey`) whose object it
 * is deleting are `released` (detach them: kcm already waited for the unmount), any other attachment
 * nobody asks for is left alone and reported. `releasedInstances`: the instance of each released
 * attachment whose Node object is gone, as its VolumeAttachment names it (the node-id annotation),
 * so EC2's answer can still be matched to that node and the volume detached.
 */
type DecidedBy =
  /** `volumeAttachmentPairs`: the (volume, node) pairs (`pairKey`) the VolumeAttachments read name. */
  | { kind: 'pods'; volumeAttachmentPairs?: ReadonlySet<string> }
  | { kind: 'kcm'; released: ReadonlySet<string>; releasedInstances?: ReadonlyMap<InstanceId, NodeName> };

export type AttachmentState = 'attaching' | 'attached' | 'detaching' | 'uncertain';

/** One node's attachment of a volume, as persisted in the actual state. */
export interface ActualAttachment {
  nodeName: NodeName;
  instanceId: InstanceId;
  state: AttachmentState;
  /** Device path EC2 uses, e.g. `/dev/xvdaa`; unknown for some uncertain entries. */
  device?: string;
  /** In the node's `volumesInUse` when last seen. */
  mounted: boolean;
  /** Listed in the node's `status.volumesAttached` when last written. */
  reported: boolean;
  /** When the controller first found this attachment no longer desired (epoch ms). */
  detachRequestedAt?: number;
  /**
   * Passes adding the volume to the node's `volumesAttached`, each until its lease end (pass id →
   * epoch ms): no detach may begin while one lasts, so a node never lists a volume EC2 is detaching
   * (invariant 5). Each ends with its own pass's node-status write.
   */
  listingClaims?: Record<string, number>;
  /** When `state` was entered (epoch ms): finds attaches stuck past 90 s. */
  since: number;
}

export type OperationKind = 'attach' | 'detach';

/** An in-flight attach or detach. Holding it is holding the lock (a lease). */
export interface Operation {
  id: string;
  kind: OperationKind;
  nodeName: NodeName;
  instanceId: InstanceId;
  /** Device reserved for an attach, so concurrent attaches to one instance pick distinct names. */
  device?: string;
  /** DetachVolume's Force flag: only when the instance is gone or the node is out of service. */
  ec2Force?: boolean;
  startedAt: number;
  leaseExpiresAt: number;
  /**
   * The node's attachment as it was before this operation began; absent when the operation
   * created it. A definite EC2 failure (EC2 did nothing) restores it exactly.
   */
  prior?: { state: AttachmentState; device?: string };
}

/** Exponential backoff of one (volume, operation) key, persisted across invocations. */
export interface Backoff {
  failures: number;
  notBefore: number;
  lastError: string;
  /**
   * EC2 answered `AttachmentLimitExceeded`: final for the node until something detaches from it
   * (DESIGN §8). `attached` is how many attachments the actual state held on `instanceId` then;
   * the attach is planned again only once it holds fewer.
   */
  untilDetachFrom?: { instanceId: InstanceId; attached: number };
}

/**
 * The actual state of one EBS volume: one DynamoDB item. `version` is the
 * compare-and-swap token; 0 means "never stored".
 */
export interface VolumeRecord {
  volumeId: VolumeId;
  uniqueName: UniqueVolumeName;
  accessModes: AccessMode[];
  multiAttach: boolean;
  attachments: Record<NodeName, ActualAttachment>;
  /** Keyed by lock key (see `lockKey`): one per volume, or one per node for multi-attach volumes. */
  operations: Record<string, Operation>;
  /** Keyed by operation key (see `operationKey`). */
  backoff: Record<string, Backoff>;
  version: number;
}

export type ActualState = Map<VolumeId, VolumeRecord>;

export type InstanceState = 'pending' | 'running' | 'stopping' | 'stopped' | 'shutting-down' | 'terminated';

/** EC2's view of one attachment (`busy` is a detach EC2 cannot finish while the OS holds the device). */
export type Ec2AttachmentState = 'attaching' | 'attached' | 'detaching' | 'detached' | 'busy';

export interface Ec2Attachment {
  instanceId: InstanceId;
  state: Ec2AttachmentState;
  device: string;
  /** When EC2 began this attachment (epoch ms, EC2's AttachTime): how long an `attaching` has been stuck. */
  attachTime?: number;
}

export interface VolumeObservation {
  volumeId: VolumeId;
  exists: boolean;
  zone?: string;
  multiAttachEnabled?: boolean;
  attachments: Ec2Attachment[];
  /** The volume's tags (what the role's conditions read), its encryption and KMS key, as DescribeVolumes returns them. */
  tags?: Record<string, string>;
  encrypted?: boolean;
  kmsKeyId?: string;
}

/** What EC2 said during this pass. Absent maps mean "not asked this pass", never "nothing there". */
export interface Observations {
  volumes?: Map<VolumeId, VolumeObservation>;
  /** `'missing'`: EC2 does not know the instance (long terminated). */
  instances?: Map<InstanceId, InstanceState | 'missing'>;
}

/** The lock key of an operation: the volume, or volume + node for multi-attach volumes. */
export function lockKey(record: Pick<VolumeRecord, 'multiAttach'>, nodeName: NodeName): string {
  return record.multiAttach ? `node:${nodeName}` : 'volume';
}

/** The key of a (volume, node) pair in a pass's sets and indexes. */
export function pairKey(volumeId: VolumeId, nodeName: NodeName): string {
  return `${volumeId}|${nodeName}`;
}

export function pairOf(key: string): { volumeId: VolumeId; nodeName: NodeName } {
  const [volumeId = '', nodeName = ''] = key.split('|');
  return { volumeId, nodeName };
}

/** The backoff key of an operation: kind and node (upstream keys by operation, volume and node). */
export function operationKey(kind: OperationKind, nodeName: NodeName): string {
  return `${kind}:${nodeName}`;
}
