/**
 * client-node's model classes → the core's plain shapes (lambda/core/kube.ts). Only the
 * fields the core reads are carried; pod volumes and PV specs keep their other fields
 * because the core inspects volume sources by name. Dates stay Date (the core allows it).
 */
import type {
  V1CSINode,
  V1Node,
  V1ObjectMeta,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1VolumeAttachment,
} from '@kubernetes/client-node';
import type { KubeCsiNode, KubeNode, KubePod, KubePv, KubePvc, KubeVolumeAttachment, ObjectMeta } from '../../core/kube.js';
import { IncompleteReadError } from '../../ports/cluster.js';

function toObjectMeta(meta: V1ObjectMeta | undefined): ObjectMeta {
  if (meta === undefined) return {};
  const { name, namespace, uid, resourceVersion, annotations, labels, deletionTimestamp, finalizers } = meta;
  return { name, namespace, uid, resourceVersion, annotations, labels, deletionTimestamp, finalizers };
}

export function toKubeNode(node: V1Node): KubeNode {
  return {
    metadata: toObjectMeta(node.metadata),
    spec: { providerID: node.spec?.providerID, taints: node.spec?.taints },
    status: {
      conditions: node.status?.conditions,
      volumesInUse: node.status?.volumesInUse,
      volumesAttached: node.status?.volumesAttached,
    },
  };
}

export function toKubePod(pod: V1Pod): KubePod {
  return {
    metadata: toObjectMeta(pod.metadata),
    spec: { nodeName: pod.spec?.nodeName, volumes: pod.spec?.volumes?.map((volume) => ({ ...volume })) },
    status: {
      phase: pod.status?.phase,
      containerStatuses: pod.status?.containerStatuses,
      initContainerStatuses: pod.status?.initContainerStatuses,
      ephemeralContainerStatuses: pod.status?.ephemeralContainerStatuses,
    },
  };
}

export function toKubePvc(pvc: V1PersistentVolumeClaim): KubePvc {
  return {
    metadata: toObjectMeta(pvc.metadata),
    spec: { volumeName: pvc.spec?.volumeName, accessModes: pvc.spec?.accessModes, volumeMode: pvc.spec?.volumeMode },
    status: { phase: pvc.status?.phase, accessModes: pvc.status?.accessModes },
  };
}

export function toKubePv(pv: V1PersistentVolume): KubePv {
  return {
    metadata: toObjectMeta(pv.metadata),
    spec: pv.spec === undefined ? undefined : { ...pv.spec },
    status: { phase: pv.status?.phase },
  };
}

/** A VolumeAttachment without spec cannot come from a real API server; refuse the read rather than guess. */
export function toKubeVolumeAttachment(va: V1VolumeAttachment): KubeVolumeAttachment {
  if (va.spec === undefined) {
    throw new IncompleteReadError(`VolumeAttachment ${va.metadata?.name ?? '(unnamed)'} has no spec`);
  }
  const { attacher, nodeName, source } = va.spec;
  return {
    metadata: toObjectMeta(va.metadata),
    spec: {
      attacher,
      nodeName,
      source: {
        persistentVolumeName: source.persistentVolumeName,
        inlineVolumeSpec: source.inlineVolumeSpec && { csi: source.inlineVolumeSpec.csi, accessModes: source.inlineVolumeSpec.accessModes },
      },
    },
    status: va.status && { ...va.status },
  };
}

export function toKubeCsiNode(csiNode: V1CSINode): KubeCsiNode {
  return {
    metadata: toObjectMeta(csiNode.metadata),
    spec: { drivers: csiNode.spec.drivers.map((d) => ({ name: d.name, nodeID: d.nodeID })) },
  };
}
