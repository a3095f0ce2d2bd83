/**
 * kcm's desired state of world, recomputed from the objects as its informers see them
 * (pkg/controller/volume/attachdetach: desired_state_of_world_populator and util.ProcessPodVolumes):
 * every volume of the EBS CSI driver that a pod scheduled on a managed node needs, with the
 * VolumeAttachment source kcm's CSI attacher would write for it.
 */
import type { KubeNode, KubePod, KubePodVolume, KubePv, KubePvc } from '../../lambda/core/kube.js';
import { EBS_CSI_DRIVER } from '../../lambda/core/types.js';
import { parseVolumeId, uniqueNameFor } from '../../lambda/core/volume-id.js';

const MANAGED_ANNOTATION = 'volumes.kubernetes.io/controller-managed-attach-detach';

export interface PodRef {
  namespace: string;
  name: string;
  uid: string;
}

/** A VolumeAttachment's `spec.source`: a PV by name, or the translated spec of an inline volume. */
export type VaSource = { persistentVolumeName: string } | { inlineVolumeSpec: Record<string, unknown> };

export interface VolumeToAttach {
  uniqueName: string;
  volumeHandle: string;
  nodeName: string;
  source: VaSource;
  /** The volume spec's name in kcm's messages: the PV's name, or the pod volume's. */
  specName: string;
  /** util.IsMultiAttachAllowed: false when the access modes include ReadWriteOnce or ReadWriteOncePod. */
  multiAttachAllowed: boolean;
  pods: PodRef[];
}

type Resolved = Omit<VolumeToAttach, 'nodeName' | 'pods'>;

/** util.IsPodTerminated: Failed/Succeeded, or being deleted with no container running. */
function terminated(pod: KubePod): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') return true;
  if (!pod.metadata.deletionTimestamp) return false;
  const status = pod.status ?? {};
  const all = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? []), ...(status.ephemeralContainerStatuses ?? [])];
  return all.every((s) => Boolean(s.state?.terminated ?? s.state?.waiting));
}

function multiAttachAllowed(accessModes: readonly string[] | null | undefined): boolean {
  if (!accessModes || accessModes.length === 0) return true; // upstream lets the attacher decide
  return !accessModes.some((m) => m === 'ReadWriteOnce' || m === 'ReadWriteOncePod');
}

function translated(volumeID: string): string | undefined {
  const parsed = parseVolumeId(volumeID);
  return parsed.ok ? parsed.volumeId : undefined;
}

/** A PV of the EBS driver, in-tree `awsElasticBlockStore` translated as CSI migration does. */
function fromPv(pv: KubePv): Resolved | undefined {
  const name = pv.metadata.name ?? '';
  const csi = pv.spec?.csi;
  const inTree = pv.spec?.awsElasticBlockStore;
  const handle = csi?.driver === EBS_CSI_DRIVER ? csi.volumeHandle : inTree ? translated(inTree.volumeID) : undefined;
  if (!handle) return undefined;
  return {
    uniqueName: uniqueNameFor(handle),
    volumeHandle: handle,
    source: { persistentVolumeName: name },
    specName: name,
    multiAttachAllowed: multiAttachAllowed(pv.spec?.accessModes),
  };
}

/** An inline in-tree EBS volume: the translator's PV spec (ReadWriteOnce) goes into the VA. */
function fromInline(volume: KubePodVolume): Resolved | undefined {
  const ebs = volume.awsElasticBlockStore;
  const handle = ebs ? translated(ebs.volumeID) : undefined;
  if (!ebs || !handle) return undefined;
  const csi = {
    driver: EBS_CSI_DRIVER,
    volumeHandle: handle,
    ...(ebs.fsType ? { fsType: ebs.fsType } : {}),
    ...(ebs.readOnly ? { readOnly: true } : {}),
  };
  return {
    uniqueName: uniqueNameFor(handle),
    volumeHandle: handle,
    source: { inlineVolumeSpec: { accessModes: ['ReadWriteOnce'], csi } },
    specName: volume.name,
    multiAttachAllowed: false,
  };
}

interface Objects {
  claims: Map<string, KubePvc>;
  volumes: Map<string, KubePv>;
}

/** PVC → PV as util.go's getPVCFromCache / getPVSpecFromCache: bound claim, PV naming the claim's uid back. */
function fromClaim(pod: KubePod, volume: KubePodVolume, objects: Objects): Resolved | undefined {
  const ephemeral = volume.ephemeral !== undefined && volume.ephemeral !== null;
  const claimName = ephemeral ? `${pod.metadata.name}-${volume.name}` : volume.persistentVolumeClaim?.claimName;
  const claim = objects.claims.get(`${pod.metadata.namespace}/${claimName}`);
  if (!claim || claim.status?.phase !== 'Bound' || !claim.spec?.volumeName) return undefined;
  if (ephemeral && !(claim.metadata.ownerReferences ?? []).some((o) => o.controller === true && o.uid === pod.metadata.uid))
    return undefined;
  const pv = objects.volumes.get(claim.spec.volumeName);
  if (!pv || pv.spec?.claimRef?.uid !== claim.metadata.uid) return undefined;
  return fromPv(pv);
}

export function volumesToAttach(nodes: KubeNode[], pods: KubePod[], pvcs: KubePvc[], pvs: KubePv[]): VolumeToAttach[] {
  const managed = new Set(nodes.filter((n) => n.metadata.annotations?.[MANAGED_ANNOTATION] !== undefined).map((n) => n.metadata.name));
  const objects: Objects = {
    claims: new Map(pvcs.map((c) => [`${c.metadata.namespace}/${c.metadata.name}`, c])),
    volumes: new Map(pvs.map((pv) => [pv.metadata.name ?? '', pv])),
  };
  const wanted = new Map<string, VolumeToAttach>();
  for (const pod of pods) {
    const nodeName = pod.spec?.nodeName;
    if (!nodeName || !managed.has(nodeName) || terminated(pod)) continue;
    const ref = { namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' };
    for (const volume of pod.spec?.volumes ?? []) {
      const resolved = fromInline(volume) ?? fromClaim(pod, volume, objects);
      if (!resolved) continue;
      const key = `${resolved.uniqueName}|${nodeName}`;
      const entry = wanted.get(key) ?? { ...resolved, nodeName, pods: [] };
      entry.pods.push(ref);
      wanted.set(key, entry);
    }
  }
  return [...wanted.values()];
}
