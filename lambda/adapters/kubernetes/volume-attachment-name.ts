/**
 * The name the kubelet waits on for a CSI attachment. Computed exactly as kubelet's
 * `getAttachmentName` (pkg/volume/csi/csi_attacher.go): `csi-` + lowercase hex of
 * sha256 over the volume handle, the driver name and the node name, concatenated
 * with no separator.
 */
import { createHash } from 'node:crypto';
import { EBS_CSI_DRIVER } from '../../core/types.js';

export function volumeAttachmentName(volumeHandle: string, nodeName: string, attacher: string = EBS_CSI_DRIVER): string {
  const digest = createHash('sha256').update(`${volumeHandle}${attacher}${nodeName}`, 'utf8').digest('hex');
  return `csi-${digest}`;
}
