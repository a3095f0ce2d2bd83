/**
 * Small builders for core tests. Every call returns fresh objects, so no test can leak state into
 * another; shared fixtures go through `fresh()` (a deep copy). Time is always an argument.
 */
import { expect } from 'vitest';
import type { ClusterSnapshot, KubeNode, KubePod, KubePodVolume, KubePv, KubePvc, KubeVolumeAttachment } from '../../lambda/core/kube.js';
import { DEFAULT_PLAN_CONFIG, type PlanConfig } from '../../lambda/core/config.js';
import { MANAGED_ANNOTATION, OUT_OF_SERVICE_TAINT } from '../../lambda/core/nodes.js';
import {
  EBS_CSI_DRIVER,
  UNIQUE_NAME_PREFIX,
  type AccessMode,
  type ActualAttachment,
  type ActualState,
  type AttachmentState,
  type Backoff,
  type DesiredAttachment,
  type DesiredState,
  type NodeView,
  type Operation,
  type OperationKind,
  type PodRef,
  type VolumeRecord,
} from '../../lambda/core/types.js';

export const T0 = Date.UTC(2026, 0, 1);
export const MIN = 60_000;

export const fresh = <T>(value: T): T => structuredClone(value);

/** `vol-` + 17 hex digits from a small number: vol(1) = vol-00000000000000001. */
export const vol = (n: number): string => `vol-${n.toString(16).padStart(17, '0')}`;
export const uname = (volumeId: string): string => `${UNIQUE_NAME_PREFIX}${volumeId}`;
/** A stable instance id per node name. */
export const instanceOf = (nodeName: string): string => `i-${Buffer.from(nodeName).toString('hex').padStart(17, '0').slice(-17)}`;

export interface NodeOptions {
  providerID?: string | null;
  ready?: boolean;
  managed?: boolean;
  outOfService?: boolean;
  inUse?: string[];
  attached?: { name: string; devicePath: string }[];
}

export function node(name: string, o: NodeOptions = {}): KubeNode {
  const providerID = o.providerID === undefined ? `aws:///us-east-1a/${instanceOf(name)}` : o.providerID;
  return {
    metadata: { name, annotations: o.managed === false ? {} : { [MANAGED_ANNOTATION]: 'true' } },
    spec: {
      ...(providerID === null ? {} : { providerID }),
      taints: o.outOfService ? [{ key: OUT_OF_SERVICE_TAINT, value: 'nodeshutdown', effect: 'NoExecute' }] : [],
    },
    status: {
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
      volumesInUse: (o.inUse ?? []).map(uname),
      volumesAttached: o.attached ?? [],
    },
  };
}

type ContainerState = 'running' | 'waiting' | 'terminated' | 'unknown';
const stateOf = (s: ContainerState) => (s === 'unknown' ? {} : { [s]: {} });

export interface PodOptions {
  ns?: string;
  node?: string | null;
  claims?: string[];
  ephemeral?: string[];
  inline?: { name: string; volumeID: string }[];
  other?: KubePodVolume[];
  phase?: string;
  deleting?: boolean;
  containers?: ContainerState[];
  init?: ContainerState[];
  ephemeralContainers?: ContainerState[];
}

export function pod(name: string, o: PodOptions = {}): KubePod {
  const volumes: KubePodVolume[] = [
    ...(o.claims ?? []).map((claimName) => ({ name: `v-${claimName}`, persistentVolumeClaim: { claimName } })),
    ...(o.ephemeral ?? []).map((v) => ({ name: v, ephemeral: { volumeClaimTemplate: {} } })),
    ...(o.inline ?? []).map((v) => ({ name: v.name, awsElasticBlockStore: { volumeID: v.volumeID } })),
    ...(o.other ?? []),
  ];
  const statuses = (list: ContainerState[] | undefined) => (list ?? []).map((s, i) => ({ name: `c${i}`, state: stateOf(s) }));
  return {
    metadata: {
      name,
      namespace: o.ns ?? 'default',
      uid: `uid-pod-${name}`,
      ...(o.deleting ? { deletionTimestamp: new Date(T0).toISOString() } : {}),
    },
    spec: { ...(o.node === null ? {} : { nodeName: o.node ?? 'node-a' }), volumes },
    status: {
      phase: o.phase ?? 'Running',
      containerStatuses: statuses(o.containers ?? ['running']),
      initContainerStatuses: statuses(o.init),
      ephemeralContainerStatuses: statuses(o.ephemeralContainers),
    },
  };
}

export interface PvcOptions {
  ns?: string;
  pv?: string | null;
  phase?: string;
  ownerUid?: string;
}

export function pvc(name: string, o: PvcOptions = {}): KubePvc {
  const pvName = o.pv === undefined ? `pv-${name}` : o.pv;
  return {
    metadata: {
      name,
      namespace: o.ns ?? 'default',
      uid: `uid-pvc-${name}`,
      ...(o.ownerUid ? { ownerReferences: [{ uid: o.ownerUid, kind: 'Pod', controller: true }] } : {}),
    },
    spec: pvName === null ? {} : { volumeName: pvName },
    status: { phase: o.phase ?? (pvName === null ? 'Pending' : 'Bound') },
  };
}

export interface PvOptions {
  volumeId?: string;
  source?: 'csi' | 'in-tree' | 'nfs' | 'other-csi';
  modes?: AccessMode[];
  /** spec.volumeMode; unset reads as Filesystem, as Kubernetes defaults it. */
  volumeMode?: 'Block' | 'Filesystem';
  /** The claim it is bound to (namespace default); null: no claimRef. */
  claim?: string | null;
  claimUid?: string;
}

export function pv(name: string, o: PvOptions = {}): KubePv {
  const volumeId = o.volumeId ?? vol(1);
  const source = o.source ?? 'csi';
  const claim = o.claim === undefined ? name.replace(/^pv-/, '') : o.claim;
  const spec: KubePv['spec'] = { accessModes: o.modes ?? ['ReadWriteOnce'], ...(o.volumeMode ? { volumeMode: o.volumeMode } : {}) };
  if (source === 'csi') spec.csi = { driver: EBS_CSI_DRIVER, volumeHandle: volumeId };
  if (source === 'other-csi') spec.csi = { driver: 'efs.csi.aws.com', volumeHandle: 'fs-1234' };
  if (source === 'in-tree') spec.awsElasticBlockStore = { volumeID: volumeId };
  if (source === 'nfs') spec.nfs = { server: 'nfs.local', path: '/' };
  if (claim !== null) spec.claimRef = { namespace: 'default', name: claim, uid: o.claimUid ?? `uid-pvc-${claim}` };
  return { metadata: { name }, spec };
}

export interface VaOptions {
  /** The PV it names (persistentVolumeName). */
  pv?: string;
  /** The inline CSI spec it carries (driver defaults to ebs.csi.aws.com). */
  inline?: { volumeHandle: string; driver?: string };
  attacher?: string;
  /** `status.attached`, with the device when given; no status when undefined. */
  attached?: boolean;
  devicePath?: string;
}

export function va(nodeName: string, o: VaOptions = {}): KubeVolumeAttachment {
  const source: KubeVolumeAttachment['spec']['source'] = {
    ...(o.pv === undefined ? {} : { persistentVolumeName: o.pv }),
    ...(o.inline === undefined
      ? {}
      : // kcm writes an inline volume's spec as ReadWriteOnce (its CSI translation).
        {
          inlineVolumeSpec: {
            csi: { driver: o.inline.driver ?? EBS_CSI_DRIVER, volumeHandle: o.inline.volumeHandle },
            accessModes: ['ReadWriteOnce'],
          },
        }),
  };
  const status =
    o.attached === undefined
      ? {}
      : {
          status: { attached: o.attached, ...(o.devicePath === undefined ? {} : { attachmentMetadata: { devicePath: o.devicePath } }) },
        };
  return {
    metadata: { name: `csi-${o.pv ?? o.inline?.volumeHandle ?? 'none'}-${nodeName}` },
    spec: { attacher: o.attacher ?? EBS_CSI_DRIVER, nodeName, source },
    ...status,
  };
}

export function snapshot(parts: Partial<ClusterSnapshot>): ClusterSnapshot {
  return { nodes: [], pods: [], pvcs: [], pvs: [], volumeAttachments: [], ...parts };
}

/** A node view as the builder would produce it for `node(name, o)`. */
export function view(name: string, o: Omit<NodeOptions, 'providerID'> & { instanceId?: string | null } = {}): NodeView {
  const instanceId = o.instanceId === undefined ? instanceOf(name) : o.instanceId;
  return {
    name,
    ...(instanceId === null ? {} : { instanceId, zone: 'us-east-1a' }),
    managed: o.managed ?? true,
    ready: o.ready ?? true,
    outOfService: o.outOfService ?? false,
    volumesInUse: (o.inUse ?? []).map(uname),
    volumesAttached: o.attached ?? [],
  };
}

export function want(
  volumeId: string,
  nodeName: string,
  o: { pods?: PodRef[]; multiAttach?: boolean; pvName?: string; instanceId?: string } = {},
): DesiredAttachment {
  return {
    volumeId,
    uniqueName: uname(volumeId),
    nodeName,
    instanceId: o.instanceId ?? instanceOf(nodeName),
    pods: o.pods ?? [{ namespace: 'default', name: `pod-on-${nodeName}`, uid: `uid-${nodeName}` }],
    accessModes: o.multiAttach ? ['ReadWriteMany'] : ['ReadWriteOnce'],
    multiAttach: o.multiAttach ?? false,
    source: { kind: 'pv', pvName: o.pvName ?? `pv-${volumeId}` },
  };
}

export function desired(
  attachments: DesiredAttachment[],
  nodes: NodeView[],
  o: { complete?: boolean; scope?: DesiredState['scope']; decidedBy?: DesiredState['decidedBy'] } = {},
): DesiredState {
  return {
    attachments,
    nodes: new Map(nodes.map((n) => [n.name, n])),
    skipped: [],
    problems: [],
    complete: o.complete ?? true,
    decidedBy: o.decidedBy ?? { kind: 'pods' },
    ...(o.scope ? { scope: o.scope } : {}),
  };
}

export interface AttachmentOptions {
  state?: AttachmentState;
  mounted?: boolean;
  reported?: boolean;
  since?: number;
  detachRequestedAt?: number;
  instanceId?: string;
  device?: string;
}

export function attachment(nodeName: string, o: AttachmentOptions = {}): ActualAttachment {
  return {
    nodeName,
    instanceId: o.instanceId ?? instanceOf(nodeName),
    state: o.state ?? 'attached',
    device: o.device ?? '/dev/xvdaa',
    mounted: o.mounted ?? false,
    reported: o.reported ?? true,
    since: o.since ?? T0 - 10 * MIN,
    ...(o.detachRequestedAt === undefined ? {} : { detachRequestedAt: o.detachRequestedAt }),
  };
}

export function op(kind: OperationKind, nodeName: string, o: { id?: string; leaseExpiresAt?: number } = {}): Operation {
  return {
    id: o.id ?? `op-${kind}-${nodeName}`,
    kind,
    nodeName,
    instanceId: instanceOf(nodeName),
    startedAt: T0 - MIN,
    leaseExpiresAt: o.leaseExpiresAt ?? T0 + 10 * MIN,
  };
}

export interface RecordOptions {
  multiAttach?: boolean;
  operations?: Record<string, Operation>;
  backoff?: Record<string, Backoff>;
}

export function record(volumeId: string, attachments: ActualAttachment[], o: RecordOptions = {}): VolumeRecord {
  return {
    volumeId,
    uniqueName: uname(volumeId),
    accessModes: o.multiAttach ? ['ReadWriteMany'] : ['ReadWriteOnce'],
    multiAttach: o.multiAttach ?? false,
    attachments: Object.fromEntries(attachments.map((a) => [a.nodeName, a])),
    operations: o.operations ?? {},
    backoff: o.backoff ?? {},
    version: 1,
  };
}

export const actualOf = (...records: VolumeRecord[]): ActualState => new Map(records.map((r) => [r.volumeId, r]));

export const config = (o: Partial<PlanConfig> = {}): PlanConfig => ({ ...fresh(DEFAULT_PLAN_CONFIG), ...o });

/** Typed asymmetric matchers, so they sit inside typed objects without `any`. */
export const matching = (pattern: RegExp | string): string => expect.stringMatching(pattern) as string;
export function like<T extends object>(partial: Partial<T>): T {
  const expected: object = partial;
  return expect.objectContaining(expected) as T;
}
