/**
 * The API server's JSON → the core's plain shapes (lambda/core/kube.ts), one object at a time,
 * as each list page arrives. Only the fields the core reads are kept, each kind its own: a full
 * pass holds every pod, claim and volume of the cluster at once, and what the API server sends
 * besides (labels, other volume sources, container images, node condition messages, PV node
 * affinity) would be most of its memory. Timestamps stay RFC 3339 strings (the core accepts them).
 * A field of the wrong type is left out, so the core reports the object as it reports one missing
 * that field; an object that is not an object at all, or a VolumeAttachment without spec, cannot
 * come from a real API server and fails the read.
 */
import type {
  KubeCsiNode,
  AttachedVolume,
  KubeContainerStatus,
  KubeNode,
  KubeNodeCondition,
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

/** Metadata a kind keeps beyond identity, version and deletion, because one of its readers needs it. */
interface MetaKept {
  annotations?: true;
  finalizers?: true;
  ownerReferences?: true;
}

function toObjectMeta(value: unknown, kept: MetaKept = {}): ObjectMeta {
  const meta = obj(value);
  if (meta === undefined) return {};
  const ownerReferences = kept.ownerReferences
    ? objects<{ uid: string; kind?: string; name?: string; controller?: boolean }>(meta.ownerReferences)?.filter(
        (ref) => typeof ref.uid === 'string',
      )
    : undefined;
  return {
    name: str(meta.name),
    namespace: str(meta.namespace),
    uid: str(meta.uid),
    resourceVersion: str(meta.resourceVersion),
    ...(kept.annotations ? { annotations: stringMap(meta.annotations) } : {}),
    deletionTimestamp: str(meta.deletionTimestamp),
    ...(kept.finalizers ? { finalizers: strings(meta.finalizers) } : {}),
    ...(ownerReferences === undefined ? {} : { ownerReferences }),
  };
}

/** The listed keys of `value` that are set (neither undefined nor null), as they are. */
function picked<K extends string>(value: Json, keys: readonly K[]): Partial<Record<K, unknown>> {
  const out: Partial<Record<K, unknown>> = {};
  for (const key of keys) if (value[key] !== undefined && value[key] !== null) out[key] = value[key];
  return out;
}

/** A set field the core only tests for presence: an empty object stands for it. */
const presence = (value: unknown): unknown => (isObject(value) ? {} : value);

/** A pod volume: its name and the three sources the core resolves (pod-volumes.ts); any other source is not ours. */
function podVolumeOf(volume: Json): KubePodVolume {
  const { ephemeral, ...sources } = picked(volume, ['persistentVolumeClaim', 'awsElasticBlockStore', 'ephemeral']);
  const kept = { name: volume.name, ...sources, ...(ephemeral === undefined ? {} : { ephemeral: presence(ephemeral) }) };
  return kept as KubePodVolume;
}

/** Which of waiting, running and terminated a container is in: all upstream's IsPodTerminated asks. */
function containerStatusOf(status: Json): KubeContainerStatus {
  const state = status.state;
  if (!isObject(state)) return { name: status.name as string, ...(state === undefined ? {} : { state: null }) };
  const set = picked(state, ['waiting', 'running', 'terminated']);
  return { name: status.name as string, state: Object.fromEntries(Object.entries(set).map(([k, v]) => [k, presence(v)])) };
}

const containerStatuses = (value: unknown) => objects<Json>(value)?.map(containerStatusOf);

export function nodeFromJson(value: unknown): KubeNode {
  const node = objectOf('Node', value);
  const spec = obj(node.spec) ?? {};
  const status = obj(node.status) ?? {};
  return {
    metadata: toObjectMeta(node.metadata, { annotations: true }),
    spec: { providerID: str(spec.providerID), taints: objects(spec.taints) },
    status: {
      conditions: objects<Json>(status.conditions)?.map((c) => picked(c, ['type', 'status']) as KubeNodeCondition),
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
    spec: { nodeName: str(spec.nodeName), volumes: objects<Json>(spec.volumes)?.map(podVolumeOf) },
    status: {
      phase: str(status.phase),
      containerStatuses: containerStatuses(status.containerStatuses),
      initContainerStatuses: containerStatuses(status.initContainerStatuses),
      ephemeralContainerStatuses: containerStatuses(status.ephemeralContainerStatuses),
    },
  };
}

export function pvcFromJson(value: unknown): KubePvc {
  const pvc = objectOf('PersistentVolumeClaim', value);
  const spec = obj(pvc.spec) ?? {};
  const status = obj(pvc.status) ?? {};
  return {
    metadata: toObjectMeta(pvc.metadata, { ownerReferences: true }),
    spec: { volumeName: str(spec.volumeName), accessModes: strings(spec.accessModes), volumeMode: str(spec.volumeMode) },
    status: { phase: str(status.phase), accessModes: strings(status.accessModes) },
  };
}

export function pvFromJson(value: unknown): KubePv {
  const pv = objectOf('PersistentVolume', value);
  return {
    metadata: toObjectMeta(pv.metadata, { finalizers: true }),
    spec: pvSpecOf(obj(pv.spec)),
    status: { phase: str(obj(pv.status)?.phase) },
  };
}

/** What volume-sources.ts and pod-volumes.ts read of a PV: its EBS source, claim and access. */
function pvSpecOf(spec: Json | undefined): KubePv['spec'] {
  if (spec === undefined) return undefined;
  const { csi, claimRef, ...rest } = picked(spec, ['accessModes', 'volumeMode', 'claimRef', 'csi', 'awsElasticBlockStore']);
  return {
    ...rest,
    ...(csi === undefined ? {} : { csi: isObject(csi) ? picked(csi, ['driver', 'volumeHandle', 'readOnly', 'fsType']) : csi }),
    ...(claimRef === undefined ? {} : { claimRef: isObject(claimRef) ? picked(claimRef, ['namespace', 'name', 'uid']) : claimRef }),
  } as KubePv['spec'];
}

export function volumeAttachmentFromJson(value: unknown): KubeVolumeAttachment {
  const va = objectOf('VolumeAttachment', value);
  const metadata = toObjectMeta(va.metadata, { annotations: true, finalizers: true });
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
          volumeMode: str(inline.volumeMode),
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
