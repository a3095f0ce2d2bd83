/**
 * EBS volume ids and the kubelet's unique volume name. In-tree `awsElasticBlockStore` ids may be
 * bare (`vol-…`) or URL-shaped (`aws://<zone>/vol-…`, zone possibly empty), as upstream's
 * KubernetesVolumeIDToEBSVolumeID accepts; EC2 ids are `vol-` + 8 or 17 lowercase hex characters.
 */
import { UNIQUE_NAME_PREFIX, type UniqueVolumeName, type VolumeId } from './types.js';

const VOLUME_ID = /^vol-(?:[0-9a-f]{8}|[0-9a-f]{17})$/;
const AWS_URL = /^aws:\/\/([^/]*)\/(.*)$/;

export type ParsedVolumeId = { ok: true; volumeId: VolumeId; zone?: string } | { ok: false; error: string };

/** Parses `vol-…` or `aws://<zone>/vol-…`; anything else is an error, never an exception. */
export function parseVolumeId(input: string): ParsedVolumeId {
  const url = AWS_URL.exec(input);
  const id = url ? url[2]! : input;
  if (!VOLUME_ID.test(id)) {
    return {
      ok: false,
      error: `invalid EBS volume id ${JSON.stringify(input)}: expected vol- and 8 or 17 lowercase hex characters, optionally as aws://<zone>/vol-…`,
    };
  }
  const zone = url?.[1];
  return zone ? { ok: true, volumeId: id, zone } : { ok: true, volumeId: id };
}

export function isVolumeId(input: string): boolean {
  return VOLUME_ID.test(input);
}

/** The name the kubelet waits for in `volumesAttached` / `volumesInUse`. */
export function uniqueNameFor(volumeId: VolumeId): UniqueVolumeName {
  return `${UNIQUE_NAME_PREFIX}${volumeId}`;
}

/** The volume id inside an EBS CSI unique name; undefined for any other name. */
export function volumeIdOf(uniqueName: string): VolumeId | undefined {
  if (!uniqueName.startsWith(UNIQUE_NAME_PREFIX)) return undefined;
  const id = uniqueName.slice(UNIQUE_NAME_PREFIX.length);
  return VOLUME_ID.test(id) ? id : undefined;
}
