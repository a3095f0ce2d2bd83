/**
 * Kubernetes objects for a generated cluster, shaped as the API server stores them (status
 * included), so they can be seeded straight into the kube sandbox's store.
 */
import { createHash } from 'node:crypto';
import { volumeAttachmentName } from '../../lambda/adapters/kubernetes/volume-attachment-name.js';
import { ATTACHER_FINALIZER } from '../../lambda/core/attacher/names.js';
import { uniqueNameFor } from '../../lambda/core/volume-id.js';
import { EBS_CSI_DRIVER } from '../../lambda/core/types.js';
import type { GenAttachment, GeneratedCluster, GenNode, GenPod, GenVolume } from './model.js';

const MANAGED_ANNOTATION = 'volumes.kubernetes.io/controller-managed-attach-detach';
const CREATED = '2026-01-05T09:00:00Z';

/** A uid derived from the instance, so a CSINode can name its Node as owner before either is stored. */
function nodeUid(node: GenNode): string {
  const hex = createHash('sha256').update(`node/${node.name}/${node.instanceId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The EBS node plugin's MaxVolumesPerNode for the sandbox's instance types: none is in its limits
 * table, so 27 shared Nitro attachments, less the root volume and each network interface beyond
 * the first (pkg/driver/node.go getVolumesLimit).
 */
function ebsAllocatableCount(networkInterfaces = 1): number {
  return 27 - 1 - (networkInterfaces - 1);
}

export function nodeObject(node: GenNode, attached: GenAttachment[] = [], options: { ready?: boolean } = {}): object {
  const volumes = attached.map((a) => ({ name: uniqueNameFor(a.volumeId), devicePath: a.device }));
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: node.name,
      uid: nodeUid(node),
      creationTimestamp: CREATED,
      annotations: { [MANAGED_ANNOTATION]: 'true' },
      labels: {
        'kubernetes.io/hostname': node.name,
        'topology.kubernetes.io/zone': node.zone,
        'topology.ebs.csi.aws.com/zone': node.zone,
        'node.kubernetes.io/instance-type': node.instanceType,
      },
    },
    spec: { providerID: `aws:///${node.zone}/${node.instanceId}` },
    status: {
      conditions: [
        {
          type: 'Ready',
          status: options.ready === false ? 'False' : 'True',
          reason: 'KubeletReady',
          lastHeartbeatTime: CREATED,
          lastTransitionTime: CREATED,
        },
      ],
      volumesAttached: volumes,
      volumesInUse: volumes.map((v) => v.name),
    },
  };
}

/**
 * The CSINode the kubelet creates (owned by its Node, so the garbage collector removes it with the
 * node) once the EBS node plugin registers: its NodeGetInfo answers the instance id, the topology
 * keys (stored sorted) and the attachment limit.
 */
export function csiNodeObject(node: GenNode): object {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: { name: node.name, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.name, uid: nodeUid(node) }] },
    spec: {
      drivers: [
        {
          name: EBS_CSI_DRIVER,
          nodeID: node.instanceId,
          topologyKeys: ['kubernetes.io/os', 'topology.ebs.csi.aws.com/zone', 'topology.kubernetes.io/zone'],
          allocatable: { count: ebsAllocatableCount() },
        },
      ],
    },
  };
}

export function pvObject(volume: GenVolume): object {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: volume.pvName,
      uid: volume.pvUid,
      annotations: { 'pv.kubernetes.io/provisioned-by': EBS_CSI_DRIVER },
      finalizers: ['kubernetes.io/pv-protection'],
    },
    spec: {
      accessModes: volume.accessModes,
      capacity: { storage: `${volume.sizeGiB}Gi` },
      volumeMode: volume.volumeMode,
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: volume.multiAttach ? 'io2-multi-attach' : 'gp3',
      claimRef: {
        kind: 'PersistentVolumeClaim',
        apiVersion: 'v1',
        namespace: volume.claim.namespace,
        name: volume.claim.name,
        uid: volume.claim.uid,
      },
      csi: { driver: EBS_CSI_DRIVER, volumeHandle: volume.volumeId, ...(volume.volumeMode === 'Filesystem' ? { fsType: 'ext4' } : {}) },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.ebs.csi.aws.com/zone', operator: 'In', values: [volume.zone] }] }],
        },
      },
    },
    status: { phase: 'Bound' },
  };
}

export function pvcObject(volume: GenVolume): object {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: volume.claim.name,
      namespace: volume.claim.namespace,
      uid: volume.claim.uid,
      finalizers: ['kubernetes.io/pvc-protection'],
    },
    spec: {
      accessModes: volume.accessModes,
      volumeMode: volume.volumeMode,
      volumeName: volume.pvName,
      storageClassName: volume.multiAttach ? 'io2-multi-attach' : 'gp3',
      resources: { requests: { storage: `${volume.sizeGiB}Gi` } },
    },
    status: { phase: 'Bound', accessModes: volume.accessModes, capacity: { storage: `${volume.sizeGiB}Gi` } },
  };
}

function containerStatus(pod: GenPod): object {
  const state = pod.phase === 'Running' ? { running: { startedAt: CREATED } } : { waiting: { reason: 'ContainerCreating' } };
  return { name: pod.app, image: `registry.example.com/${pod.app}:1.0`, ready: pod.phase === 'Running', restartCount: 0, state };
}

export function podObject(pod: GenPod, options: { blockDevice?: boolean } = {}): object {
  const claimVolumes = pod.claims.map((claimName, i) => ({ name: i === 0 ? 'data' : `data-${i}`, persistentVolumeClaim: { claimName } }));
  const mounts = options.blockDevice
    ? { volumeDevices: [{ name: 'data', devicePath: '/dev/ledger' }] }
    : { volumeMounts: claimVolumes.map((v) => ({ name: v.name, mountPath: `/var/lib/${v.name}` })) };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: pod.name,
      namespace: pod.namespace,
      uid: pod.uid,
      creationTimestamp: CREATED,
      labels: { app: pod.app },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: pod.owner.kind,
          name: pod.owner.name,
          uid: pod.owner.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      ...(pod.nodeName === undefined ? {} : { nodeName: pod.nodeName }),
      containers: [{ name: pod.app, image: `registry.example.com/${pod.app}:1.0`, ...mounts }],
      volumes: [...claimVolumes, { name: 'tmp', emptyDir: {} }],
    },
    status: {
      phase: pod.phase,
      ...(pod.nodeName === undefined
        ? { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] }
        : { containerStatuses: [containerStatus(pod)] }),
    },
  };
}

function volumeAttachmentObject(attachment: GenAttachment, volume: GenVolume): object {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: { name: volumeAttachmentName(volume.volumeId, attachment.nodeName), finalizers: [ATTACHER_FINALIZER] },
    spec: { attacher: EBS_CSI_DRIVER, nodeName: attachment.nodeName, source: { persistentVolumeName: volume.pvName } },
    status: { attached: true, attachmentMetadata: { devicePath: attachment.device } },
  };
}

/** Every object of the cluster, nodes first (their status lists the pre-attached volumes). */
export function clusterObjects(cluster: GeneratedCluster): object[] {
  const volumes = new Map(cluster.volumes.map((v) => [v.volumeId, v]));
  const byNode = Map.groupBy(cluster.attached, (a) => a.nodeName);
  return [
    ...cluster.nodes.map((node) => nodeObject(node, byNode.get(node.name) ?? [])),
    ...cluster.nodes.map(csiNodeObject),
    ...cluster.volumes.map(pvObject),
    ...cluster.volumes.map(pvcObject),
    ...cluster.pods.map((pod) => podObject(pod, { blockDevice: pod.claims.some((c) => c === 'shared-ledger') })),
    ...cluster.attached.map((a) => volumeAttachmentObject(a, volumes.get(a.volumeId) as GenVolume)),
  ];
}
