/**
 * One pod volume → the EBS volume it needs, or why not. Mirrors upstream's CreateVolumeSpec:
 * PVC (or generic ephemeral PVC `<pod>-<volume>`) → bound PV → CSI `ebs.csi.aws.com` or in-tree
 * `awsElasticBlockStore` (translated to the CSI name); inline `awsElasticBlockStore` likewise.
 * Volumes of any other kind are ignored without a word: they are not ours.
 */
import { accessModesOf, allowsMultiAttach, ebsCapability } from './access-modes.js';
import type { KubePod, KubePodVolume, KubePv, KubePvc } from './kube.js';
import { podRefOf } from './pods.js';
import { capabilityRefusedEvent, invalidVolumeEvent } from './events.js';
import type { SkipCode } from './reasons.js';
import type { AccessMode, PodRef, VolumeEvent, VolumeId, VolumeSource } from './types.js';
import { volumeOfInline, volumeOfPv } from './volume-sources.js';

export type VolumeResolution =
  | { kind: 'ebs'; volumeId: VolumeId; accessModes: AccessMode[]; multiAttach: boolean; source: VolumeSource }
  | { kind: 'ignored' }
  | { kind: 'skipped'; code: SkipCode; reason: string; problem?: string; event?: VolumeEvent };

export interface ClaimLookup {
  pvc(namespace: string, name: string): KubePvc | undefined;
  pv(name: string): KubePv | undefined;
}

const IGNORED: VolumeResolution = { kind: 'ignored' };

/** PVCs by namespace/name and PVs by name, from lists read from the cluster. */
export function claimLookup(pvcs: readonly KubePvc[], pvs: readonly KubePv[]): ClaimLookup {
  const byClaim = new Map(pvcs.map((pvc) => [`${pvc.metadata.namespace ?? ''}/${pvc.metadata.name ?? ''}`, pvc]));
  const byName = new Map(pvs.map((pv) => [pv.metadata.name ?? '', pv]));
  return { pvc: (namespace, name) => byClaim.get(`${namespace}/${name}`), pv: (name) => byName.get(name) };
}

/** `specName` is what upstream's events name: the PV, or the pod's inline volume. */
function badId(raw: string, where: string, error: string, specName: string): VolumeResolution {
  return {
    kind: 'skipped',
    code: 'invalid-volume-id',
    reason: `${where} has an invalid EBS volume id ${JSON.stringify(raw)}`,
    problem: `${where}: ${error}`,
    event: invalidVolumeEvent(specName, raw, error),
  };
}

function skip(code: SkipCode, reason: string): VolumeResolution {
  return { kind: 'skipped', code, reason };
}

function fromPv(pv: KubePv, pvName: string): VolumeResolution {
  const volume = volumeOfPv(pv);
  if (volume.kind === 'not-ours') return IGNORED;
  if (volume.kind === 'invalid') return badId(volume.raw, `PV ${pvName}`, volume.error, pvName);
  const accessModes = accessModesOf(pv.spec?.accessModes);
  // The EBS CSI driver refuses some capabilities on every node: we never ask EC2 for what it would refuse.
  const capability = ebsCapability(accessModes, pv.spec?.volumeMode);
  if (capability.kind === 'refused') {
    const asked = `${accessModes.join(', ') || 'no access modes'} as ${pv.spec?.volumeMode ?? 'Filesystem'}`;
    return {
      kind: 'skipped',
      code: 'capability-refused',
      reason: `PV ${pvName} (${asked}) is refused by the EBS CSI driver: ${capability.message}`,
      event: capabilityRefusedEvent(pvName, capability.message),
    };
  }
  return {
    kind: 'ebs',
    volumeId: volume.volumeId,
    accessModes,
    multiAttach: allowsMultiAttach(accessModes),
    source: { kind: 'pv', pvName },
  };
}

/** Upstream's ephemeral.VolumeIsForPod: the PVC must be controlled by this very pod. */
function ownedBy(pvc: KubePvc, pod: PodRef): boolean {
  return pod.uid !== '' && (pvc.metadata.ownerReferences ?? []).some((ref) => ref.controller === true && ref.uid === pod.uid);
}

function fromClaim(pod: PodRef, claimName: string, ephemeral: boolean, lookup: ClaimLookup): VolumeResolution {
  const claim = `PVC ${pod.namespace}/${claimName}`;
  const pvc = lookup.pvc(pod.namespace, claimName);
  if (!pvc) return skip('claim-not-found', `${claim} not found`);
  if (ephemeral && !ownedBy(pvc, pod))
    return skip('claim-not-owned', `${claim} was not created for pod ${pod.namespace}/${pod.name} (pod is not its owner)`);
  const pvName = pvc.spec?.volumeName;
  if (pvc.status?.phase !== 'Bound' || !pvName) {
    const phase = pvc.status?.phase ?? 'unknown';
    return skip('claim-unbound', `${claim} is not bound (phase ${phase}, volumeName ${JSON.stringify(pvName ?? '')})`);
  }
  const pv = lookup.pv(pvName);
  if (!pv) return skip('pv-not-found', `PV ${pvName} bound to ${claim} not found`);
  const resolved = fromPv(pv, pvName);
  if (resolved.kind !== 'ebs') return resolved;
  const claimRef = pv.spec?.claimRef;
  if (!claimRef) return skip('pv-not-bound-back', `PV ${pvName} has no claimRef: it is not yet bound to ${claim}`);
  if (claimRef.uid !== pvc.metadata.uid) {
    const uids = `UID ${JSON.stringify(claimRef.uid ?? '')} does not match ${claim} UID ${JSON.stringify(pvc.metadata.uid ?? '')}`;
    return skip('pv-claim-mismatch', `PV ${pvName} claimRef ${uids}`);
  }
  return resolved;
}

function fromInline(pod: PodRef, volume: KubePodVolume): VolumeResolution {
  const resolved = volumeOfInline(volume.awsElasticBlockStore!);
  if (resolved.kind === 'invalid')
    return badId(resolved.raw, `inline volume ${volume.name} of pod ${pod.namespace}/${pod.name}`, resolved.error, volume.name);
  // Inline volumes carry no access modes: exclusive.
  return {
    kind: 'ebs',
    volumeId: resolved.volumeId,
    accessModes: [],
    multiAttach: false,
    source: { kind: 'inline', podVolumeName: volume.name },
  };
}

/** Upstream's ephemeral.VolumeClaimName: a generic ephemeral volume's PVC is `<pod>-<volume>`. */
export function ephemeralClaimName(podName: string, volumeName: string): string {
  return `${podName}-${volumeName}`;
}

/** Every claim a pod's volumes use, once each: what must be read to resolve them. */
export function claimNamesOf(pod: KubePod): string[] {
  const names = (pod.spec?.volumes ?? []).flatMap((volume) => {
    if (volume.persistentVolumeClaim) return [volume.persistentVolumeClaim.claimName];
    if (volume.ephemeral) return [ephemeralClaimName(pod.metadata.name ?? '', volume.name)];
    return [];
  });
  return [...new Set(names)];
}

/** `pod` is the validated reference of the pod that holds `volume`. */
export function resolvePodVolume(pod: PodRef, volume: KubePodVolume, lookup: ClaimLookup): VolumeResolution {
  if (volume.persistentVolumeClaim) return fromClaim(pod, volume.persistentVolumeClaim.claimName, false, lookup);
  if (volume.ephemeral) return fromClaim(pod, ephemeralClaimName(pod.name, volume.name), true, lookup);
  if (volume.awsElasticBlockStore) return fromInline(pod, volume);
  return IGNORED;
}

/**
 * Every EBS volume a pod names, whether or not the pod counts for the desired state (a
 * terminated pod's volumes still need looking at: they may have to leave its node).
 */
export function volumesOfPod(pod: KubePod, lookup: ClaimLookup): VolumeId[] {
  const ref = podRefOf(pod);
  if (ref === undefined) return [];
  return (pod.spec?.volumes ?? []).flatMap((volume) => {
    const resolved = resolvePodVolume(ref, volume, lookup);
    return resolved.kind === 'ebs' ? [resolved.volumeId] : [];
  });
}
