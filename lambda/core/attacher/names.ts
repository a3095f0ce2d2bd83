/**
 * The marks external-attacher leaves on the objects it works on (kubernetes-csi/external-attacher
 * `pkg/controller/util.go`), which kcm, the kubelet and a sidecar taking over again all read.
 */
import { EBS_CSI_DRIVER } from '../types.js';

/** `external-attacher/` + the driver name with every character but letters, digits and `-` as `-`. */
export const ATTACHER_FINALIZER = `external-attacher/${EBS_CSI_DRIVER.replace(/[^a-zA-Z0-9-]/g, '-')}`;

/** The instance a VolumeAttachment was attached to, so a detach can find it when the CSINode is gone. */
export const NODE_ID_ANNOTATION = 'csi.alpha.kubernetes.io/node-id';

/** gRPC ResourceExhausted: the attachment limit of the node is reached, so the kubelet may fail the pod for rescheduling. */
export const RESOURCE_EXHAUSTED = 8;
