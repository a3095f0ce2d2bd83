/**
 * Node → EC2 instance in attacher mode, as external-attacher's getNodeID does: the nodeID the EBS
 * node plugin registered in `CSINode(<node>).spec.drivers[ebs.csi.aws.com]`; for a detach only, when
 * that is gone, the `csi.alpha.kubernetes.io/node-id` annotation written at attach time. The node's
 * `spec.providerID` only cross-checks an attach. A nodeID that is not an EC2 instance id (e.g. a
 * SageMaker HyperPod `hyperpod-…` node) is an error, never guessed around.
 */
import type { KubeCsiNode, KubeNode, KubeVolumeAttachment } from '../kube.js';
import { isInstanceId, parseProviderId } from '../provider-id.js';
import { EBS_CSI_DRIVER, type InstanceId, type NodeName } from '../types.js';
import { NODE_ID_ANNOTATION } from './names.js';

export type NodeInstance = { ok: true; instanceId: InstanceId } | { ok: false; error: string };

/** The EBS node plugin's nodeID on this node, when it registered one. */
export function registeredNodeId(csiNode: KubeCsiNode | undefined): string | undefined {
  const nodeId = csiNode?.spec?.drivers?.find((d) => d.name === EBS_CSI_DRIVER)?.nodeID;
  return nodeId === null || nodeId === '' ? undefined : nodeId;
}

function asInstance(nodeId: string, where: string): NodeInstance {
  return isInstanceId(nodeId)
    ? { ok: true, instanceId: nodeId }
    : { ok: false, error: `${where} is ${JSON.stringify(nodeId)}, which is not an EC2 instance id` };
}

/** The instance to attach to: the CSINode's word, refused when the node's providerID names another instance. */
export function instanceToAttach(nodeName: NodeName, csiNode: KubeCsiNode | undefined, node: KubeNode | undefined): NodeInstance {
  const nodeId = registeredNodeId(csiNode);
  if (nodeId === undefined) return { ok: false, error: `CSINode ${nodeName} has no ${EBS_CSI_DRIVER} driver registered` };
  const registered = asInstance(nodeId, `the ${EBS_CSI_DRIVER} nodeID of CSINode ${nodeName}`);
  if (!registered.ok) return registered;
  const provider = parseProviderId(node?.spec?.providerID);
  // A node name reused by a replacement instance: the CSINode may lag until the new kubelet registers.
  if (provider.ok && provider.instanceId !== registered.instanceId)
    return {
      ok: false,
      error: `CSINode ${nodeName} names instance ${registered.instanceId} but the node's providerID names ${provider.instanceId}`,
    };
  return registered;
}

/** The instance to detach from: the CSINode's word, else the annotation our attach left on the object. */
export function instanceToDetach(nodeName: NodeName, csiNode: KubeCsiNode | undefined, va: KubeVolumeAttachment): NodeInstance {
  const nodeId = registeredNodeId(csiNode);
  if (nodeId !== undefined) return asInstance(nodeId, `the ${EBS_CSI_DRIVER} nodeID of CSINode ${nodeName}`);
  const annotated = va.metadata.annotations?.[NODE_ID_ANNOTATION];
  if (annotated === undefined || annotated === '')
    return { ok: false, error: `CSINode ${nodeName} has no ${EBS_CSI_DRIVER} driver and the VolumeAttachment no ${NODE_ID_ANNOTATION}` };
  return asInstance(annotated, `annotation ${NODE_ID_ANNOTATION}`);
}
