/**
 * Access modes, by the two rules upstream applies one after the other.
 *
 * kcm's (`isMultiAttachAllowed`): a volume is exclusive when any of its access modes is
 * ReadWriteOnce or ReadWriteOncePod (so "only RWO/RWOP" is exclusive, and so is a mix such as
 * RWO + RWX). A PV without access modes is treated as exclusive too: upstream lets the attacher
 * fail there, we would rather not try.
 *
 * The EBS CSI driver's (what the csi-attacher asks it, and what it accepts): external-attacher
 * turns the PV's access modes into one CSI access mode (csi-lib-utils `accessmodes.ToCSIAccessMode`,
 * without SINGLE_NODE_MULTI_WRITER, which EBS does not advertise) and its volumeMode into the access
 * type; ControllerPublishVolume then accepts only what `isValidCapability` does
 * (aws-ebs-csi-driver pkg/driver/controller.go at 429e202e): SINGLE_NODE_WRITER, and
 * MULTI_NODE_MULTI_WRITER on a block device. Anything else is refused on every node, the first
 * too, and the sidecar writes the refusal as the VolumeAttachment's attachError.
 */
import type { AccessMode } from './types.js';

const KNOWN: readonly AccessMode[] = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];

export function accessModesOf(modes: readonly string[] | null | undefined): AccessMode[] {
  return KNOWN.filter((mode) => (modes ?? []).includes(mode));
}

/** kcm's rule: whether it would let the volume be attached to several nodes at once. */
export function allowsMultiAttach(modes: readonly AccessMode[]): boolean {
  return modes.length > 0 && !modes.some((mode) => mode === 'ReadWriteOnce' || mode === 'ReadWriteOncePod');
}

/** gRPC InvalidArgument: the driver's answer to a capability it does not support (external-attacher keeps it as errorCode). */
const INVALID_ARGUMENT = 3;

export type EbsCapability =
  /** SINGLE_NODE_WRITER. */
  | { kind: 'single-node' }
  /** MULTI_NODE_MULTI_WRITER on a block device: several nodes, as far as EBS's driver goes (io2 Multi-Attach is EC2's to check). */
  | { kind: 'multi-node' }
  /** What the sidecar writes as attachError: the driver's refusal (with its gRPC code), or external-attacher's own. */
  | { kind: 'refused'; message: string; errorCode?: number };

const NOT_SUPPORTED: EbsCapability = {
  kind: 'refused',
  message: 'rpc error: code = InvalidArgument desc = Volume capability not supported',
  errorCode: INVALID_ARGUMENT,
};

/** How the EBS CSI driver answers a PV (or inline spec) of these access modes and volume mode, through the csi-attacher. */
export function ebsCapability(modes: readonly AccessMode[], volumeMode: string | undefined): EbsCapability {
  const has = (mode: AccessMode) => modes.includes(mode);
  if (has('ReadWriteOncePod'))
    return modes.length > 1
      ? {
          kind: 'refused',
          message: 'Kubernetes does not support use of ReadWriteOncePod with other access modes on the same PersistentVolume',
        }
      : { kind: 'single-node' };
  // ReadWriteMany takes precedence over the other modes.
  if (has('ReadWriteMany')) return volumeMode === 'Block' ? { kind: 'multi-node' } : NOT_SUPPORTED;
  if (has('ReadOnlyMany') && has('ReadWriteOnce'))
    return { kind: 'refused', message: 'CSI does not support ReadOnlyMany and ReadWriteOnce on the same PersistentVolume' };
  // MULTI_NODE_READER_ONLY: the driver takes no read-only-many volume.
  if (has('ReadOnlyMany')) return NOT_SUPPORTED;
  if (has('ReadWriteOnce')) return { kind: 'single-node' };
  return { kind: 'refused', message: `unsupported AccessMode combination: [${modes.join(' ')}]` };
}
