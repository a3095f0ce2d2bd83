/**
 * Which EBS volume a Kubernetes object names: a PV (CSI `ebs.csi.aws.com` or in-tree
 * `awsElasticBlockStore`), an inline pod volume, a VolumeAttachment's source, or an entry of a node's
 * `volumesAttached` / `volumesInUse`. Every reader of these objects asks here, so a handle such as
 * `aws://<zone>/vol-…` means the same volume wherever it is written.
 */
import type { AwsElasticBlockStoreSource, CsiPersistentVolumeSource, KubePv, KubeVolumeAttachment } from './kube.js';
import { EBS_CSI_DRIVER, type VolumeId } from './types.js';
import { parseVolumeId, volumeIdOf } from './volume-id.js';

export type EbsVolume = { kind: 'ebs'; volumeId: VolumeId };
/** Another kind of volume (NFS, another CSI driver): not ours, nothing to say about it. */
type NotOurs = { kind: 'not-ours' };
/** Says it is an EBS volume but its id is malformed (`raw` as written). */
export type InvalidId = { kind: 'invalid'; raw: string; error: string };

export type PvVolume = EbsVolume | NotOurs | InvalidId;
export type AttachmentVolume = EbsVolume | NotOurs | { kind: 'invalid'; error: string };

const NOT_OURS: NotOurs = { kind: 'not-ours' };

function fromRaw(raw: string): EbsVolume | InvalidId {
  const parsed = parseVolumeId(raw);
  return parsed.ok ? { kind: 'ebs', volumeId: parsed.volumeId } : { kind: 'invalid', raw, error: parsed.error };
}

/** A PV's volume: the EBS CSI handle, else the in-tree id (translated as CSI migration does). */
export function volumeOfPv(pv: KubePv): PvVolume {
  const csi = pv.spec?.csi;
  if (csi?.driver === EBS_CSI_DRIVER) return fromRaw(csi.volumeHandle);
  const inTree = pv.spec?.awsElasticBlockStore;
  return inTree ? fromRaw(inTree.volumeID) : NOT_OURS;
}

/** An inline `awsElasticBlockStore` pod volume. */
export function volumeOfInline(source: AwsElasticBlockStoreSource): EbsVolume | InvalidId {
  return fromRaw(source.volumeID);
}

function volumeOfInlineSpec(csi: CsiPersistentVolumeSource | null | undefined, where: string): AttachmentVolume {
  if (csi?.driver !== EBS_CSI_DRIVER)
    return { kind: 'invalid', error: `${where} has an inline volume spec without driver ${EBS_CSI_DRIVER}` };
  return fromRaw(csi.volumeHandle);
}

/**
 * A VolumeAttachment's volume: through its PV (looked up by name) or its inline CSI spec; exactly
 * one of the two must be set, as the API validates. Objects of another attacher are not ours.
 */
export function volumeOfVolumeAttachment(va: KubeVolumeAttachment, pvNamed: (name: string) => KubePv | undefined): AttachmentVolume {
  if (va.spec.attacher !== EBS_CSI_DRIVER) return NOT_OURS;
  const where = `VolumeAttachment ${va.metadata.name ?? ''}`;
  const { persistentVolumeName: pvName, inlineVolumeSpec: inline } = va.spec.source;
  if (pvName && inline) return { kind: 'invalid', error: `${where} names both a PV and an inline volume spec` };
  if (inline) return volumeOfInlineSpec(inline.csi, where);
  if (!pvName) return { kind: 'invalid', error: `${where} names neither a PV nor an inline volume spec` };
  const pv = pvNamed(pvName);
  return pv ? volumeOfPv(pv) : { kind: 'invalid', error: `${where} names PV ${pvName}, which was not found` };
}

/** The volume id, or undefined for anything that is not a valid EBS volume. */
export function ebsVolumeId(volume: PvVolume | AttachmentVolume): VolumeId | undefined {
  return volume.kind === 'ebs' ? volume.volumeId : undefined;
}

/** The in-tree plugin's unique name, still found on nodes that have not moved to CSI names. */
const IN_TREE_PREFIX = 'kubernetes.io/aws-ebs/';

/** The volume in a node's `volumesAttached` / `volumesInUse` entry: CSI unique name or the in-tree form. */
export function volumeOfNodeStatusName(name: string): VolumeId | undefined {
  if (!name.startsWith(IN_TREE_PREFIX)) return volumeIdOf(name);
  const parsed = parseVolumeId(name.slice(IN_TREE_PREFIX.length));
  return parsed.ok ? parsed.volumeId : undefined;
}

/** Volume → name of the PV that holds it, for VolumeAttachment references and event texts. */
export function pvNamesByVolume(pvs: readonly KubePv[]): Map<VolumeId, string> {
  const names = new Map<VolumeId, string>();
  for (const pv of pvs) {
    const volumeId = ebsVolumeId(volumeOfPv(pv));
    if (volumeId !== undefined && pv.metadata.name !== undefined) names.set(volumeId, pv.metadata.name);
  }
  return names;
}

/** PVs by name, the lookup a VolumeAttachment's source needs. */
export function pvLookup(pvs: readonly KubePv[]): (name: string) => KubePv | undefined {
  const byName = new Map(pvs.map((pv) => [pv.metadata.name ?? '', pv]));
  return (name) => byName.get(name);
}
