/**
 * What a targeted pass reads: only around its target. The scope it builds follows the core's
 * rule (guards.ts): `nodes` are nodes whose every pod was read — only there may a detach be
 * decided — and `volumes` are volumes whose records were loaded. Besides the target's own
 * node(s), the nodes its volumes are attached to are read too, so a rescheduled pod's volume can
 * leave its old node in the same pass. Any read failure throws: the event is retried and the
 * full pass remains the safety net; nothing is decided on a partial read.
 */
import { buildDesiredState } from '../../core/desired-state.js';
import type { ClusterSnapshot } from '../../core/kube.js';
import { claimLookup, volumesOfPod } from '../../core/pod-volumes.js';
import { parseProviderId } from '../../core/provider-id.js';
import type { ActualState, DesiredState, InstanceId, NodeName, VolumeId } from '../../core/types.js';
import { pvLookup, volumeOfNodeStatusName, volumeOfVolumeAttachment } from '../../core/volume-sources.js';
import type { CorruptItem } from '../../ports/volume-store.js';
import { mergeSnapshots } from './snapshot.js';
import type { Target } from '../pass/types.js';
import type { ControllerDeps } from './deps.js';

export interface TargetedInputs {
  snapshot: ClusterSnapshot;
  desired: DesiredState;
  actual: ActualState;
  corrupt: CorruptItem[];
}

interface Reading {
  parts: Partial<ClusterSnapshot>[];
  nodesRead: Set<NodeName>;
  volumes: Set<VolumeId>;
  /** Volumes whose items were asked for already: one with no item, or a corrupt one, is not asked (or reported) again. */
  asked: Set<VolumeId>;
  actual: ActualState;
  corrupt: CorruptItem[];
}

export async function loadTargeted(deps: ControllerDeps, target: Target): Promise<TargetedInputs> {
  const reading: Reading = { parts: [], nodesRead: new Set(), volumes: new Set(), asked: new Set(), actual: new Map(), corrupt: [] };
  const seedNodes = await seedsOf(deps, target, reading);
  const targetVolumes = [...reading.volumes];
  // The target's nodes first, so one read of the store serves their volumes and the target's alike.
  await readNodes(deps, reading, seedNodes);
  await loadRecords(deps, reading);
  // Then the nodes the target's volumes are attached to (their pods decide a detach there), if any are new.
  if (await readNodes(deps, reading, attachedNodes(reading.actual, targetVolumes))) await loadRecords(deps, reading);
  const snapshot = mergeSnapshots(reading.parts);
  const scope = { volumes: [...reading.volumes].sort(), nodes: [...reading.nodesRead].sort() };
  return { snapshot, desired: buildDesiredState(snapshot, { complete: true, scope }), actual: reading.actual, corrupt: reading.corrupt };
}

/** The target's own objects; returns the nodes it names. */
async function seedsOf(deps: ControllerDeps, target: Target, reading: Reading): Promise<NodeName[]> {
  switch (target.kind) {
    case 'pod':
      return podSeeds(deps, target, reading);
    case 'node':
      return [target.name];
    case 'instance':
      return nodesOfInstance(deps, target.instanceId, reading);
    case 'volume':
      reading.volumes.add(target.volumeId);
      return [];
    case 'volumeAttachment':
      return volumeAttachmentSeeds(deps, target.name, reading);
  }
}

/**
 * A pod and the node it runs on. When the event names the node (kube-scheduler's `Scheduled`), that
 * node's pods are read at once and the pod comes with them, its claims and volumes read once; the
 * pod is read on its own only when it is not there (the hint was stale, or the pod moved on).
 */
async function podSeeds(deps: ControllerDeps, target: Extract<Target, { kind: 'pod' }>, reading: Reading): Promise<NodeName[]> {
  if (target.nodeHint !== undefined) await readNodes(deps, reading, [target.nodeHint]);
  let known = mergeSnapshots(reading.parts);
  let pod = known.pods.find((p) => p.metadata.namespace === target.namespace && p.metadata.name === target.name);
  if (pod === undefined) {
    const closure = await deps.cluster.readPod(target.namespace, target.name);
    if (closure.pod === undefined) return [];
    reading.parts.push({ pods: [closure.pod], pvcs: closure.pvcs, pvs: closure.pvs });
    known = mergeSnapshots(reading.parts);
    pod = closure.pod;
  }
  for (const id of volumesOfPod(pod, claimLookup(known.pvcs, known.pvs))) reading.volumes.add(id);
  return pod.spec?.nodeName ? [pod.spec.nodeName] : [];
}

/** One of our VolumeAttachments: its volume, and its node (every pod there is read). */
async function volumeAttachmentSeeds(deps: ControllerDeps, name: string, reading: Reading): Promise<NodeName[]> {
  const va = await deps.cluster.readVolumeAttachment(name);
  if (va === undefined) return [];
  const pvName = va.spec.source.persistentVolumeName;
  const pv = pvName ? await deps.cluster.readPv(pvName) : undefined;
  const volume = volumeOfVolumeAttachment(va, pvLookup(pv === undefined ? [] : [pv]));
  if (volume.kind === 'ebs') reading.volumes.add(volume.volumeId);
  return [va.spec.nodeName];
}

/**
 * The node(s) an instance served. EC2 releases a terminated instance's volumes at once, so EC2
 * alone may name none of them; the node objects still name the instance in `spec.providerID`.
 * One paged node list finds them: the event is rare, and the table has no index by instance (a
 * scan would read every volume item instead). The volumes EC2 still shows on the instance
 * (stopping, stopped) name their records, and through them nodes whose object is already gone.
 */
async function nodesOfInstance(deps: ControllerDeps, instanceId: InstanceId, reading: Reading): Promise<NodeName[]> {
  const [nodes, observations] = await Promise.all([deps.cluster.listNodes(), deps.blockStorage.describeInstanceVolumes(instanceId)]);
  for (const observation of observations) reading.volumes.add(observation.volumeId);
  await loadRecords(deps, reading);
  const named = nodes.filter((node) => {
    const provider = parseProviderId(node.spec?.providerID);
    return provider.ok && provider.instanceId === instanceId;
  });
  const recorded = [...reading.actual.values()].flatMap((r) => Object.values(r.attachments).filter((a) => a.instanceId === instanceId));
  return [...named.map((node) => node.metadata.name ?? ''), ...recorded.map((a) => a.nodeName)].filter((name) => name !== '');
}

async function loadRecords(deps: ControllerDeps, reading: Reading): Promise<void> {
  const missing = [...reading.volumes].filter((id) => !reading.asked.has(id)).sort();
  if (missing.length === 0) return;
  for (const id of missing) reading.asked.add(id);
  const loaded = await deps.store.getMany(missing);
  for (const [id, record] of loaded.records) reading.actual.set(id, record);
  reading.corrupt.push(...loaded.corrupt);
}

/** Reads the nodes not read yet, with every pod on them, and adds the volumes they use or report; false when there were none. */
async function readNodes(deps: ControllerDeps, reading: Reading, names: NodeName[]): Promise<boolean> {
  const fresh = [...new Set(names)].filter((name) => !reading.nodesRead.has(name));
  if (fresh.length === 0) return false;
  await Promise.all(
    fresh.map(async (name) => {
      const [node, onNode] = await Promise.all([deps.cluster.readNode(name), deps.cluster.readPodsOnNode(name)]);
      reading.parts.push({ nodes: node === undefined ? [] : [node], pods: onNode.pods, pvcs: onNode.pvcs, pvs: onNode.pvs });
      reading.nodesRead.add(name);
    }),
  );
  for (const id of volumesOnNodes(mergeSnapshots(reading.parts), reading.nodesRead)) reading.volumes.add(id);
  return true;
}

function attachedNodes(actual: ActualState, volumes: readonly VolumeId[]): NodeName[] {
  return [...volumes].flatMap((id) => Object.keys(actual.get(id)?.attachments ?? {}));
}

/** Volumes the read nodes use or report: their records must be loaded before the plan looks at those nodes. */
function volumesOnNodes(snapshot: ClusterSnapshot, nodes: Set<NodeName>): VolumeId[] {
  const ids: VolumeId[] = [];
  const lookup = claimLookup(snapshot.pvcs, snapshot.pvs);
  for (const pod of snapshot.pods) if (nodes.has(pod.spec?.nodeName ?? '')) ids.push(...volumesOfPod(pod, lookup));
  for (const node of snapshot.nodes) {
    const names = [...(node.status?.volumesAttached ?? []).map((v) => v.name), ...(node.status?.volumesInUse ?? [])];
    for (const name of names) {
      const id = volumeOfNodeStatusName(name);
      if (id !== undefined) ids.push(id);
    }
  }
  return ids;
}
