/**
 * The objects the simulated csi-attacher sidecar reads, typed here on purpose: the sidecar models
 * another implementation (kubernetes-csi/external-attacher with the EBS CSI driver), so it shares
 * no code with the controller under test beyond the sandbox itself.
 */
export const DRIVER = 'ebs.csi.aws.com';
/** external-attacher's finalizer: `external-attacher/` + the driver name with `/` and `.` replaced by `-`. */
export const FINALIZER = 'external-attacher/ebs-csi-aws-com';
/** Written before ControllerPublish, so a detach can find the node after its CSINode is gone. */
export const NODE_ID_ANNOTATION = 'csi.alpha.kubernetes.io/node-id';

interface Meta {
  name: string;
  finalizers?: string[];
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
}

export interface Va {
  metadata: Meta;
  spec: {
    attacher: string;
    nodeName: string;
    source: { persistentVolumeName?: string; inlineVolumeSpec?: { csi?: { driver: string; volumeHandle: string } } };
  };
  status?: { attached?: boolean; attachmentMetadata?: Record<string, string> | null };
}

export interface Pv {
  metadata: Meta;
  spec?: { csi?: { driver: string; volumeHandle: string } };
}

export interface CsiNode {
  metadata: Meta;
  spec?: { drivers?: { name: string; nodeID?: string }[] };
}

/** The EBS volume a VolumeAttachment names: a CSI PV of the driver, or an inline CSI spec. */
export function volumeOf(va: Va, pvs: ReadonlyMap<string, Pv>): string | undefined {
  const inline = va.spec.source.inlineVolumeSpec?.csi;
  if (inline !== undefined) return inline.driver === DRIVER ? inline.volumeHandle : undefined;
  const csi = pvs.get(va.spec.source.persistentVolumeName ?? '')?.spec?.csi;
  return csi?.driver === DRIVER ? csi.volumeHandle : undefined;
}

/** getNodeID: the CSINode's nodeID for the driver; for a detach, the annotation when the CSINode is gone. */
export function instanceOf(va: Va, csiNodes: ReadonlyMap<string, CsiNode>): string | undefined {
  const registered = csiNodes.get(va.spec.nodeName)?.spec?.drivers?.find((d) => d.name === DRIVER)?.nodeID;
  if (registered) return registered;
  return va.metadata.deletionTimestamp ? va.metadata.annotations?.[NODE_ID_ANNOTATION] : undefined;
}

export const without = (list: readonly string[] | undefined, item: string): string[] => (list ?? []).filter((x) => x !== item);
