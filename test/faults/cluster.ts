/**
 * A small cluster for one fault scenario (3–4 nodes in one zone, a handful of volumes; a theme may ask for another shape), and the
 * changes the rest of a cluster makes to it between passes: pods moving, coming and going, a
 * second pod claiming an RWO volume, nodes going NotReady and back, the out-of-service taint, an
 * instance terminated. Every RWO volume is an io2 with Multi-Attach enabled in EC2, so only the
 * controller stands between it and a second node (invariant 1 is really tested).
 */
import { podObject, pvcObject, pvObject, nodeObject, csiNodeObject } from '../../sandbox/generate/kube-objects.js';
import type { GenNode, GenOwner, GenPod, GenVolume } from '../../sandbox/generate/model.js';
import { podSuffix, volumeId, instanceId } from '../../sandbox/generate/names.js';
import type { KubePod } from '../../lambda/core/kube.js';
import type { Random } from '../../sandbox/generate/random.js';
import { addInstance, addVolume } from '../../sandbox/generate/seed.js';
import { changeInstanceState } from '../../sandbox/ec2/state/lifecycle.js';
import { evictFromNotReady } from './eviction.js';
import { deleteNode, markStoppedNotReady, replaceNode, startInstance, stopInstance } from './node-lifecycle.js';
import type { FaultCluster } from './fault-cluster.js';
import type { World } from './rig.js';

const ZONE = 'us-east-1a';

export type { FaultCluster } from './fault-cluster.js';

function volume(random: Random, index: number, shared: boolean): GenVolume {
  const claim = shared ? 'shared-block' : `data-${index}`;
  return {
    volumeId: volumeId(random),
    zone: ZONE,
    volumeType: 'io2',
    sizeGiB: 10,
    iops: 1000,
    multiAttach: shared,
    pvName: `pv-${index}`,
    pvUid: random.uid(),
    claim: { namespace: 'default', name: claim, uid: random.uid() },
    accessModes: shared ? ['ReadWriteMany'] : ['ReadWriteOnce'],
    volumeMode: shared ? 'Block' : 'Filesystem',
  };
}

/** How big a scenario's cluster is, and how many of its RWO volumes start with a pod. */
export interface ClusterShape {
  nodes: [min: number, max: number];
  /** RWO volumes (the one shared RWX block volume comes on top). */
  volumes: [min: number, max: number];
  podChance: number;
}

export const SMALL_CLUSTER: ClusterShape = { nodes: [3, 4], volumes: [3, 5], podChance: 0.75 };

export function buildCluster(world: World, random: Random, shape: ClusterShape = SMALL_CLUSTER): FaultCluster {
  const nodes = Array.from({ length: random.between(...shape.nodes) }, (_, i) => ({
    name: `node-${i}`,
    instanceId: instanceId(random),
    zone: ZONE,
    instanceType: 'm6i.large',
  }));
  const volumes = [
    ...Array.from({ length: random.between(...shape.volumes) }, (_, i) => volume(random, i, false)),
    volume(random, 99, true),
  ];
  const cluster: FaultCluster = {
    nodes,
    volumes,
    pods: [],
    notReady: new Set(),
    terminated: new Set(),
    stopped: new Set(),
    deleted: new Set(),
  };
  for (const node of nodes) addInstance(world.ec2.world, node, world.clock.now());
  for (const v of volumes) addVolume(world.ec2.world, v, { multiAttachEnabled: true });
  world.kube.seed([...nodes.map((n) => nodeObject(n)), ...nodes.map(csiNodeObject), ...volumes.map(pvObject), ...volumes.map(pvcObject)]);
  for (const v of volumes.filter((x) => !x.multiAttach))
    if (random.chance(shape.podChance)) addPod(world, cluster, random, v.claim.name, random.pick(nodes));
  const readers = [...nodes].sort(() => random.next() - 0.5).slice(0, 2);
  for (const node of readers) addPod(world, cluster, random, 'shared-block', node);
  return cluster;
}

const OWNER: GenOwner = { kind: 'ReplicaSet', name: 'app-7d9f8c6b5', uid: 'owner-uid' };

export function addPod(
  world: World,
  cluster: FaultCluster,
  random: Random,
  claim: string,
  node: GenNode,
  name = `app-${podSuffix(random)}`,
): GenPod {
  const pod: GenPod = {
    namespace: 'default',
    name,
    uid: random.uid(),
    app: 'app',
    owner: OWNER,
    nodeName: node.name,
    claims: [claim],
    phase: 'Running',
  };
  world.kube.seed([podObject(pod, { blockDevice: claim === 'shared-block' })]);
  cluster.pods.push(pod);
  return pod;
}

/**
 * Pods someone else deleted meanwhile (attacher mode: the sandbox kcm's taint eviction and pod GC on
 * an out-of-service node) leave the model too, so no change is picked for a pod that is gone.
 */
export function forgetGonePods(world: World, cluster: FaultCluster): void {
  const present = new Set((world.kube.list('Pod') as KubePod[]).map((p) => `${p.metadata.namespace}/${p.metadata.name}`));
  cluster.pods = cluster.pods.filter((pod) => present.has(`${pod.namespace}/${pod.name}`));
}

function removePod(world: World, cluster: FaultCluster, pod: GenPod): void {
  world.kube.kubelet.deletePod(pod.namespace, pod.name);
  cluster.pods.splice(cluster.pods.indexOf(pod), 1);
}

export type Change =
  | { kind: 'move'; pod: string; to: string }
  | { kind: 'delete'; pod: string }
  | { kind: 'add'; claim: string; node: string }
  | { kind: 'conflict'; claim: string; node: string }
  | { kind: 'notReady' | 'ready' | 'outOfService' | 'terminate' | 'stop' | 'start' | 'deleteNode' | 'replace'; node: string }
  | { kind: 'operatorDetach'; volumeId: string; node: string }
  | { kind: 'none' };

const live = (c: FaultCluster) => c.nodes.filter((n) => !c.terminated.has(n.name) && !c.deleted.has(n.name));

/** A change that makes sense in the cluster as it is; decided by the seed alone. */
export function pickChange(cluster: FaultCluster, random: Random): Change {
  const nodes = live(cluster);
  const used = new Set(cluster.pods.map((p) => p.claims[0]));
  const free = cluster.volumes.filter((v) => !v.multiAttach && !used.has(v.claim.name));
  const exclusivePods = cluster.pods.filter((p) => p.claims[0] !== 'shared-block');
  // Nodes whose kubelet could post Ready again (a stopped machine must start first).
  const down = [...cluster.notReady].filter((n) => nodes.some((x) => x.name === n) && !cluster.stopped.has(n));
  const options: (() => Change | undefined)[] = [
    () => (exclusivePods.length ? { kind: 'move', pod: random.pick(exclusivePods).name, to: random.pick(nodes).name } : undefined),
    () => (cluster.pods.length ? { kind: 'delete', pod: random.pick(cluster.pods).name } : undefined),
    () => (free.length ? { kind: 'add', claim: random.pick(free).claim.name, node: random.pick(nodes).name } : undefined),
    () =>
      exclusivePods.length
        ? { kind: 'conflict', claim: random.pick(exclusivePods).claims[0] as string, node: random.pick(nodes).name }
        : undefined,
    () => ({ kind: 'notReady', node: random.pick(nodes).name }),
    () => (down.length ? { kind: 'ready', node: random.pick(down) } : undefined),
    () => (down.length ? { kind: 'outOfService', node: random.pick(down) } : undefined),
    () =>
      nodes.length > 3 || (nodes.length === 3 && random.chance(0.3)) ? { kind: 'terminate', node: random.pick(nodes).name } : undefined,
    () => (nodes.length > 2 ? { kind: 'stop', node: random.pick(nodes).name } : undefined),
    () => (cluster.stopped.size ? { kind: 'start', node: random.pick([...cluster.stopped]) } : undefined),
    () => (nodes.length > 2 && random.chance(0.5) ? { kind: 'deleteNode', node: random.pick(nodes).name } : undefined),
    () => (random.chance(0.5) ? { kind: 'replace', node: random.pick(cluster.nodes).name } : undefined),
    () => ({ kind: 'none' }),
  ];
  return random.pick(options)() ?? { kind: 'none' };
}

/** The change, then what the rest of Kubernetes does meanwhile. */
export function applyChange(world: World, cluster: FaultCluster, random: Random, change: Change): void {
  applyOne(world, cluster, random, change);
  clusterGoesOn(world, cluster, random);
}

/**
 * What Kubernetes does on its own as time passes, with or without a change: stopped machines'
 * nodes go NotReady, long-NotReady nodes' pods are evicted. It goes on after the faults stop too.
 */
export function clusterGoesOn(world: World, cluster: FaultCluster, random: Random): void {
  markStoppedNotReady(world, cluster);
  evictFromNotReady(world, cluster, random, {
    remove: (gone) => removePod(world, cluster, gone),
    add: (claim, to, name) => void addPod(world, cluster, random, claim, to, name),
  });
}

function applyOne(world: World, cluster: FaultCluster, random: Random, change: Change): void {
  const node = (name: string) => cluster.nodes.find((n) => n.name === name) as GenNode;
  const pod = (name: string) => cluster.pods.find((p) => p.name === name) as GenPod;
  switch (change.kind) {
    case 'move': {
      const moving = pod(change.pod);
      removePod(world, cluster, moving);
      addPod(world, cluster, random, moving.claims[0] as string, node(change.to), moving.name);
      return;
    }
    case 'delete':
      return removePod(world, cluster, pod(change.pod));
    case 'add':
    case 'conflict':
      return void addPod(world, cluster, random, change.claim, node(change.node));
    case 'notReady':
      cluster.notReady.add(change.node);
      return world.kube.kubelet.setReady(change.node, false);
    case 'ready':
      cluster.notReady.delete(change.node);
      world.kube.kubelet.setOutOfService(change.node, false);
      return world.kube.kubelet.setReady(change.node, true);
    case 'outOfService':
      return world.kube.kubelet.setOutOfService(change.node, true);
    case 'terminate':
      return terminate(world, cluster, node(change.node));
    case 'stop':
      return stopInstance(world, cluster, node(change.node), (name) => removePod(world, cluster, pod(name)));
    case 'start':
      return startInstance(world, cluster, node(change.node));
    case 'deleteNode':
      return deleteNode(world, cluster, node(change.node), (name) => removePod(world, cluster, pod(name)));
    case 'replace':
      return replaceNode(world, cluster, random, node(change.node), (name) => removePod(world, cluster, pod(name)));
    case 'operatorDetach':
      return operatorDetach(world, change.volumeId, node(change.node).instanceId);
    case 'none':
      return;
  }
}

/**
 * Someone detaches the volume behind the controller's back (the EC2 console, a script, EC2 itself
 * giving up on an impaired volume): the attachment goes `detaching`, then away. It is not the
 * controller's call, so neither the ledger nor the oracle's DetachVolume checks see it; the node
 * still lists the volume and its pod still needs it.
 */
function operatorDetach(world: World, volumeId: string, instanceId: string): void {
  const attachment = world.ec2.world.volumes.get(volumeId)?.attachments.get(instanceId);
  if (attachment === undefined) return;
  Object.assign(attachment, { phase: 'detach', since: world.clock.now(), stuck: false });
}

/** EC2 terminates the instance (volumes released a few seconds later); the node goes NotReady and pod GC removes its pods. */
function terminate(world: World, cluster: FaultCluster, node: GenNode): void {
  const instance = world.ec2.world.instances.get(node.instanceId);
  if (instance) changeInstanceState(instance, 'shutting-down', world.clock.now());
  cluster.terminated.add(node.name);
  cluster.notReady.add(node.name);
  world.kube.kubelet.setReady(node.name, false);
  for (const pod of cluster.pods.filter((p) => p.nodeName === node.name)) removePod(world, cluster, pod);
}
