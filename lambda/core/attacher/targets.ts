/**
 * What each of our VolumeAttachments asks for (kubernetes-csi/external-attacher `csi_handler.go`):
 * only objects with `spec.attacher: ebs.csi.aws.com` are ours (EKS Auto Mode's
 * `ebs.csi.eks.amazonaws.com` is not). Its volume comes from the PV it names (CSI handle, or the
 * in-tree `awsElasticBlockStore` id translated) or from its inline spec, exactly one of the two;
 * its instance from the node's CSINode. A live object wants the volume attached; one kcm is
 * deleting (deletionTimestamp) wants it detached, if our finalizer says we may have attached it.
 */
import type { KubeCsiNode, KubeNode, KubePv, KubeVolumeAttachment } from '../kube.js';
import type { AccessMode, InstanceId, NodeName, VolumeId } from '../types.js';
import { EBS_CSI_DRIVER } from '../types.js';
import { accessModesOf, ebsCapability } from '../access-modes.js';
import { compareText } from '../compare.js';
import { pvLookup, volumeOfVolumeAttachment } from '../volume-sources.js';
import { instanceToAttach, instanceToDetach } from './instance.js';
import { ATTACHER_FINALIZER } from './names.js';

/** The objects attacher mode reads: every page of each list. */
export interface AttacherView {
  volumeAttachments: KubeVolumeAttachment[];
  pvs: KubePv[];
  csiNodes: KubeCsiNode[];
  nodes: KubeNode[];
}

/** One of our VolumeAttachments, resolved. `error` says why it cannot be acted on (reported on the object). */
export interface VaTarget {
  name: string;
  nodeName: NodeName;
  /** kcm is deleting it: detach. */
  deleting: boolean;
  /** Carries our finalizer: we may have attached it, so a detach must confirm it is gone. */
  finalized: boolean;
  volumeId?: VolumeId;
  pvName?: string;
  instanceId?: InstanceId;
  accessModes: AccessMode[];
  error?: string;
  /** The gRPC code the sidecar keeps with a driver's refusal (`attachError.errorCode`). */
  errorCode?: number;
  va: KubeVolumeAttachment;
}

export function isOurs(va: KubeVolumeAttachment): boolean {
  return va.spec.attacher === EBS_CSI_DRIVER;
}

function volumeOf(va: KubeVolumeAttachment, pvNamed: (name: string) => KubePv | undefined) {
  const volume = volumeOfVolumeAttachment(va, pvNamed);
  if (volume.kind === 'not-ours') return { error: `VolumeAttachment ${va.metadata.name ?? ''} names a volume that is not an EBS volume` };
  if (volume.kind === 'invalid') return { error: volume.error };
  return { volumeId: volume.volumeId };
}

function resolve(va: KubeVolumeAttachment, lookups: Lookups): VaTarget {
  const name = va.metadata.name ?? '';
  const nodeName = va.spec.nodeName;
  const deleting = Boolean(va.metadata.deletionTimestamp);
  const pvName = va.spec.source.persistentVolumeName ?? undefined;
  const pv = pvName === undefined ? undefined : lookups.pv(pvName);
  const inline = va.spec.source.inlineVolumeSpec;
  const accessModes = accessModesOf(pv?.spec?.accessModes ?? inline?.accessModes);
  const base = { name, nodeName, deleting, finalized: (va.metadata.finalizers ?? []).includes(ATTACHER_FINALIZER), accessModes, va };
  const target: VaTarget = pvName === undefined ? base : { ...base, pvName };
  const volume = volumeOf(va, lookups.pv);
  if (volume.error !== undefined) return { ...target, error: volume.error };
  const withVolume = { ...target, volumeId: volume.volumeId };
  // Refuse to attach a volume whose PV is going away (upstream: "PersistentVolume … is marked for deletion").
  if (!deleting && pv?.metadata.deletionTimestamp) return { ...withVolume, error: `PersistentVolume ${pvName} is marked for deletion` };
  // What the EBS CSI driver would refuse, on any node, is refused here in its words (access-modes.ts).
  const capability = deleting ? undefined : ebsCapability(accessModes, pv?.spec?.volumeMode ?? inline?.volumeMode ?? undefined);
  if (capability?.kind === 'refused')
    return { ...withVolume, error: capability.message, ...(capability.errorCode === undefined ? {} : { errorCode: capability.errorCode }) };
  const csiNode = lookups.csiNode(nodeName);
  const instance = deleting ? instanceToDetach(nodeName, csiNode, va) : instanceToAttach(nodeName, csiNode, lookups.node(nodeName));
  return instance.ok ? { ...withVolume, instanceId: instance.instanceId } : { ...withVolume, error: instance.error };
}

interface Lookups {
  pv: (name: string) => KubePv | undefined;
  csiNode: (name: string) => KubeCsiNode | undefined;
  node: (name: string) => KubeNode | undefined;
}

function byName<T extends { metadata: { name?: string } }>(objects: readonly T[]): (name: string) => T | undefined {
  const index = new Map(objects.map((o) => [o.metadata.name ?? '', o]));
  return (name) => index.get(name);
}

/** Every VolumeAttachment of ours, resolved, sorted by name. */
export function attacherTargets(view: AttacherView): VaTarget[] {
  const lookups: Lookups = { pv: pvLookup(view.pvs), csiNode: byName(view.csiNodes), node: byName(view.nodes) };
  return view.volumeAttachments
    .filter(isOurs)
    .map((va) => resolve(va, lookups))
    .sort((a, b) => compareText(a.name, b.name));
}
