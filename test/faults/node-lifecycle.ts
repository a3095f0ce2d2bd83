/**
 * What happens to a node's machine between passes: EC2 stops it (the node stays Ready while the
 * OS shuts down, as the kubelet keeps posting until it stops, and goes NotReady once stopped) and
 * starts it again, the node object is deleted while its instance still runs, and a node is
 * replaced (its instance terminated, a new instance joining under the same node name).
 */
import { csiNodeObject, nodeObject } from '../../sandbox/generate/kube-objects.js';
import type { GenNode } from '../../sandbox/generate/model.js';
import { instanceId } from '../../sandbox/generate/names.js';
import type { Random } from '../../sandbox/generate/random.js';
import { addInstance } from '../../sandbox/generate/seed.js';
import { changeInstanceState } from '../../sandbox/ec2/state/lifecycle.js';
import type { FaultCluster } from './fault-cluster.js';
import type { World } from './rig.js';

/**
 * The kubelet's graceful node shutdown terminates the node's pods as the OS goes down; their
 * volumes are no longer needed there but stay mounted (and in volumesInUse) until the machine stops.
 */
export function stopInstance(world: World, cluster: FaultCluster, node: GenNode, removePod: (name: string) => void): void {
  const instance = world.ec2.world.instances.get(node.instanceId);
  if (instance?.state === 'running') changeInstanceState(instance, 'stopping', world.clock.now());
  cluster.stopped.add(node.name);
  cluster.notReady.add(node.name);
  for (const pod of cluster.pods.filter((p) => p.nodeName === node.name)) removePod(pod.name);
}

/**
 * The node lifecycle controller's part: a node whose machine has stopped posts no more heartbeats
 * and is marked NotReady. Until then (`stopping`) it still reads Ready, with its volumes mounted.
 */
export function markStoppedNotReady(world: World, cluster: FaultCluster): void {
  world.ec2.settle();
  for (const name of cluster.stopped) {
    const node = cluster.nodes.find((n) => n.name === name);
    const state = node && world.ec2.world.instances.get(node.instanceId)?.state;
    if (state !== 'stopping' && !cluster.deleted.has(name)) world.kube.kubelet.setReady(name, false);
  }
}

/** The machine boots (pending, then running); its kubelet posts Ready again. */
export function startInstance(world: World, cluster: FaultCluster, node: GenNode): void {
  world.ec2.settle();
  const instance = world.ec2.world.instances.get(node.instanceId);
  if (instance?.state !== 'stopped') return;
  changeInstanceState(instance, 'pending', world.clock.now());
  cluster.stopped.delete(node.name);
  cluster.notReady.delete(node.name);
  if (!cluster.deleted.has(node.name)) world.kube.kubelet.setReady(node.name, true);
}

/** The node object goes; pod GC removes the pods bound to it. The instance keeps running. */
export function deleteNode(world: World, cluster: FaultCluster, node: GenNode, removePod: (name: string) => void): void {
  world.kube.kubelet.deleteNode(node.name);
  cluster.deleted.add(node.name);
  for (const pod of cluster.pods.filter((p) => p.nodeName === node.name)) removePod(pod.name);
}

/** The old instance is terminated; a new one joins as a node of the same name, Ready, with nothing attached. */
export function replaceNode(world: World, cluster: FaultCluster, random: Random, node: GenNode, removePod: (name: string) => void): void {
  const old = world.ec2.world.instances.get(node.instanceId);
  if (old && old.state !== 'terminated') changeInstanceState(old, 'shutting-down', world.clock.now());
  for (const pod of cluster.pods.filter((p) => p.nodeName === node.name)) removePod(pod.name);
  if (!cluster.deleted.has(node.name)) world.kube.kubelet.deleteNode(node.name);
  node.instanceId = instanceId(random);
  addInstance(world.ec2.world, node, world.clock.now());
  world.kube.seed([nodeObject(node), csiNodeObject(node)]);
  for (const set of [cluster.deleted, cluster.notReady, cluster.terminated, cluster.stopped]) set.delete(node.name);
}
