/**
 * The other actors of a cluster, played by the demo: the EBS CSI provisioner (creates a volume,
 * its PV and bound PVC), the scheduler (places a pod), the kubelet and the node lifecycle (a node
 * going quiet), an operator (force-deleting a pod), and EC2 terminating an instance.
 */
import { changeInstanceState } from '../ec2/state/lifecycle.js';
import { podObject, pvcObject, pvObject } from '../generate/kube-objects.js';
import type { GeneratedCluster, GenNode, GenOwner, GenPod, GenVolume } from '../generate/model.js';
import { podSuffix, volumeId } from '../generate/names.js';
import { addVolume } from '../generate/seed.js';
import type { Random } from '../generate/random.js';
import type { LocalStack } from '../local-stack.js';

export class Actors {
  /** Nodes an earlier chapter already used, so chapters do not step on each other. */
  readonly used = new Set<string>();

  constructor(
    private readonly stage: LocalStack,
    readonly cluster: GeneratedCluster,
    private readonly random: Random,
  ) {}

  /** Dynamic provisioning: an EBS gp3 volume in `zone`, and a PV bound to a new claim. */
  provision(namespace: string, claim: string, zone: string, options: { untagged?: boolean; kmsKeyId?: string } = {}): GenVolume {
    const volume: GenVolume = {
      volumeId: volumeId(this.random),
      zone,
      volumeType: 'gp3',
      sizeGiB: 50,
      multiAttach: false,
      pvName: `pvc-${this.random.uid()}`,
      pvUid: this.random.uid(),
      claim: { namespace, name: claim, uid: this.random.uid() },
      accessModes: ['ReadWriteOnce'],
      volumeMode: 'Filesystem',
    };
    // As the EBS CSI driver provisions it with k8sTagClusterId set (the cluster's tags), unless told otherwise.
    const created = addVolume(this.stage.ec2.world, volume);
    if (options.untagged) created.tags = new Map([['kubernetes.io/created-for/pvc/name', claim]]);
    if (options.kmsKeyId !== undefined) created.kmsKeyId = options.kmsKeyId;
    this.stage.kube.seed([pvObject(volume), pvcObject(volume)]);
    this.cluster.volumes.push(volume);
    return volume;
  }

  /** The scheduler binds a new pod to `node`; it waits (ContainerCreating) for its volumes. */
  schedule(template: Omit<GenPod, 'uid' | 'phase' | 'nodeName'>, node: GenNode): GenPod {
    const pod: GenPod = { ...template, uid: this.random.uid(), nodeName: node.name, phase: 'Pending' };
    this.stage.kube.seed([podObject(pod)]);
    this.cluster.pods.push(pod);
    return pod;
  }

  /** StatefulSet `owner` grows by one: the claim `data-<set>-<ordinal>` is provisioned in the node's zone, the pod scheduled there. */
  statefulMember(namespace: string, owner: GenOwner, ordinal: number, node: GenNode): GenPod {
    const claim = `data-${owner.name}-${ordinal}`;
    this.provision(namespace, claim, node.zone);
    return this.schedule({ namespace, name: `${owner.name}-${ordinal}`, app: owner.name, owner, claims: [claim] }, node);
  }

  /** A pod gone for good (terminated, or force-deleted by an operator). */
  remove(pod: GenPod): void {
    this.stage.kube.kubelet.deletePod(pod.namespace, pod.name);
    this.forget(pod);
  }

  /** A pod someone else deleted (kcm's pod GC): the story stops counting it. */
  forget(pod: GenPod): void {
    this.cluster.pods.splice(this.cluster.pods.indexOf(pod), 1);
  }

  /** The kubelet stops posting status: the node controller marks the node NotReady. */
  silence(node: GenNode): void {
    this.stage.kube.kubelet.setReady(node.name, false);
  }

  /** TerminateInstances as EC2 plays it: shutting-down now, terminated (volumes released) a few seconds later. */
  terminate(node: GenNode): void {
    const instance = this.stage.ec2.world.instances.get(node.instanceId);
    if (!instance) throw new Error(`no instance ${node.instanceId}`);
    changeInstanceState(instance, 'shutting-down', this.stage.clock.now());
  }

  suffix(): string {
    return podSuffix(this.random);
  }

  podsOn(node: GenNode): GenPod[] {
    return this.cluster.pods.filter((p) => p.nodeName === node.name);
  }

  /** Another node of the same zone, not `avoid`, still Ready and running. */
  nodeInZoneOf(node: GenNode, avoid: Set<string> = new Set()): GenNode {
    const found = this.cluster.nodes.find((n) => n.zone === node.zone && n.name !== node.name && !avoid.has(n.name));
    if (!found) throw new Error(`no other node in ${node.zone}`);
    return found;
  }

  /** The i-th node no chapter has used yet (wrapping around); any node once all have been used. */
  spareNode(i = 0, zone?: string): GenNode {
    const fits = (n: GenNode) => zone === undefined || n.zone === zone;
    const unused = this.cluster.nodes.filter((n) => !this.used.has(n.name) && fits(n));
    const pool = unused.length > 0 ? unused : this.cluster.nodes.filter(fits);
    const node = pool[i % Math.max(1, pool.length)];
    if (!node) throw new Error(`no node${zone ? ` in ${zone}` : ''}`);
    return node;
  }

  nodeOf(pod: GenPod): GenNode {
    const node = this.cluster.nodes.find((n) => n.name === pod.nodeName);
    if (!node) throw new Error(`pod ${pod.name} is not on a known node`);
    return node;
  }

  volumeOf(pod: GenPod): GenVolume {
    const volume = this.cluster.volumes.find((v) => v.claim.namespace === pod.namespace && v.claim.name === pod.claims[0]);
    if (!volume) throw new Error(`pod ${pod.name} has no claim`);
    return volume;
  }
}
