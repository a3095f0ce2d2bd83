/**
 * The API server's JSON → the core's plain shapes (lambda/core/kube.ts), one object at a time,
 * as each list page arrives. Only the fields the core reads are kept; pod volumes and PV specs
 * keep their other fields because the core inspects volume sources by name. Timestamps stay
 * RFC 3339 strings (the core accepts them). A field of the wrong type is left out, so the core
 * reports the object as it reports one missing that field; an object that is not an object at
 * all, or a VolumeAttachment without spec, cannot come from a real API server and fails the read.
 */
import type {
  KubeCsiNode,
  AttachedVolume,
  KubeNode,
  KubePod,
  KubePodVolume,
  KubePv,
  KubePvc,
  KubeVolumeAttachment,
  ObjectMeta,
} from '../../core/kube.js';
import { IncompleteReadError } from '../../ports/cluster.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const bool = (value: unknown): boolean | undefined => (typeof value === 'boolean' ? value : undefined);
const obj = (value: unknown): Json | undefined => (isObject(value) ? value : undefined);
const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
const objects = <T>(value: unknown): T[] | undefined => (Array.isArray(value) ? (value.filter(isObject) as T[]) : undefined);
const stringMap = (value: unknown): Record<string, string> | undefined =>
  isObject(value) && Object.values(value).every((v) => typeof v === 'string') ? (value as Record<string, string>) : undefined;

/** The object itself, or an IncompleteReadError naming what was read. */
function objectOf(kind: string, value: unknown): Json {
  if (!isObject(value)) throw new IncompleteReadError(`${kind}: expected an object, got ${value === null ? 'null' : typeof value}`);
  return value;
}

function toObjectMeta(value: unknown): ObjectMeta {
  const meta = obj(value);
  if (meta === undefined) return {};
  const ownerReferences = objects<{ uid: string; kind?: string; name?: string; controller?: boolean }>(meta.ownerReferences)?.filter(
    (ref) => typeof ref.uid === 'string',
  );
  return {
    name: str(meta.name),
    namespace: str(meta.namespace),
    uid: str(meta.uid),
    resourceVersion: str(meta.resourceVersion),
    annotations: stringMap(meta.annotations),
    labels: stringMap(meta.labels),
    deletionTimestamp: str(meta.deletionTimestamp),
    finalizers: strings(meta.finalizers),
    ...(ownerReferences === undefined ? {} : { ownerReferences }),
  };
}

export function nodeFromJson(value: unknown): KubeNode {
  const node = objectOf('Node', value);
  const spec = obj(node.spec) ?? {};
  const status = obj(node.status) ?? {};
  return {
    metadata: toObjectMeta(node.metadata),
    spec: { providerID: str(spec.providerID), taints: objects(spec.taints) },
    status: {
      conditions: objects(status.conditions),
      volumesInUse: strings(status.volumesInUse),
      volumesAttached: objects<AttachedVolume>(status.volumesAttached),
    },
  };
}

export function podFromJson(value: unknown): KubePod {
  const pod = objectOf('Pod', value);
  const spec = obj(pod.spec) ?? {};
  const status = obj(pod.status) ?? {};
  return {
    metadata: toObjectMeta(pod.metadata),
    spec: { nodeName: str(spec.nodeName), volumes: objects<KubePodVolume>(spec.volumes) },
    status: {
      phase: str(status.phase),
      containerStatuses: objects(status.containerStatuses),
      initContainerStatuses: objects(status.initContainerStatuses),
      ephemeralContainerStatuses: objects(status.ephemeralContainerStatuses),
    },
  };
}

export function pvcFromJson(value: unknown): KubePvc {
  const pvc = objectOf('PersistentVolumeClaim', value);
  const spec = obj(pvc.spec) ?? {};
  const status = obj(pvc.status) ?? {};
  return {
    metadata: toObjectMeta(pvc.metadata),
    spec: { volumeName: str(spec.volumeName), accessModes: strings(spec.accessModes), volumeMode: str(spec.volumeMode) },
    status: { phase: str(status.phase), accessModes: strings(status.accessModes) },
  };
}

export function pvFromJson(value: unknown): KubePv {
  const pv = objectOf('PersistentVolume', value);
  return {
    metadata: toObjectMeta(pv.metadata),
    spec: obj(pv.spec),
    status: { phase: str(obj(pv.status)?.phase) },
  };
}

export function volumeAttachmentFromJson(value: unknown): KubeVolumeAttachment {
  const va = objectOf('VolumeAttachment', value);
  const metadata = toObjectMeta(va.metadata);
  const spec = obj(va.spec);
  if (spec === undefined) throw new IncompleteReadError(`VolumeAttachment ${metadata.name ?? '(unnamed)'} has no spec`);
  const source = obj(spec.source) ?? {};
  const inline = obj(source.inlineVolumeSpec);
  const status = obj(va.status);
  return {
    metadata,
    spec: {
      attacher: str(spec.attacher) ?? '',
      nodeName: str(spec.nodeName) ?? '',
      source: {
        persistentVolumeName: str(source.persistentVolumeName),
        inlineVolumeSpec: inline && {
          csi: obj(inline.csi) as { driver: string; volumeHandle: string } | undefined,
          accessModes: strings(inline.accessModes),
        },
      },
    },
    status: status && {
      attached: bool(status.attached) ?? false,
      attachmentMetadata: stringMap(status.attachmentMetadata),
      attachError: obj(status.attachError),
      detachError: obj(status.detachError),
    },
  };
}

/** A CSINode's drivers: the EBS node plugin's entry carries the instance id attacher mode attaches to. */
export function csiNodeFromJson(value: unknown): KubeCsiNode {
  const csiNode = objectOf('CSINode', value);
  const drivers = objects<Json>(obj(csiNode.spec)?.drivers) ?? [];
  return {
    metadata: toObjectMeta(csiNode.metadata),
    spec: { drivers: drivers.flatMap((d) => (typeof d.name === 'string' ? [{ name: d.name, nodeID: str(d.nodeID) }] : [])) },
  };
}
