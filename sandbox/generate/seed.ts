/**
 * Puts a generated cluster straight into the sandboxes' in-process stores (no HTTP): fast
 * enough for thousands of nodes, and the controller then reads it through the real APIs.
 */
import type { World, SandboxAttachment, SandboxInstance, SandboxVolume } from '../ec2/state/model.js';
import type { KubeSandbox } from '../kube/index.js';
import { clusterObjects } from './kube-objects.js';
import type { GenAttachment, GeneratedCluster, GenNode, GenVolume } from './model.js';
import { SANDBOX_IMAGE_ID } from '../ec2/state/images.js';
import { awsManagedEbsKeyArn, regionOfZone } from '../ec2/state/kms.js';
import { GENERATED_CLUSTER, instanceTagsFor, volumeTagsFor } from '../cluster-tags.js';

const ROOT_DEVICE = '/dev/xvda';

/** The EC2 side: one running instance per node (with its root volume), every EBS volume, and the pre-attached ones attached. */
export function seedEc2(world: World, cluster: GeneratedCluster, clusterName = GENERATED_CLUSTER): void {
  const now = world.clock.now();
  for (const node of cluster.nodes) addInstance(world, node, now, clusterName);
  for (const volume of cluster.volumes) world.volumes.set(volume.volumeId, volumeOf(volume, now, clusterName));
  const instances = new Map(cluster.nodes.map((n) => [n.name, n.instanceId]));
  for (const attachment of cluster.attached) attachInEc2(world, attachment, instances.get(attachment.nodeName) as string, now);
}

export function addInstance(world: World, node: GenNode, now: number, clusterName = GENERATED_CLUSTER): SandboxInstance {
  const rootVolumeId = `vol-${node.instanceId.slice(2)}`;
  const instance: SandboxInstance = {
    instanceId: node.instanceId,
    reservationId: `r-${node.instanceId.slice(2)}`,
    imageId: SANDBOX_IMAGE_ID,
    instanceType: node.instanceType,
    zone: node.zone,
    state: 'running',
    since: now,
    launchTime: now,
    rootDeviceName: ROOT_DEVICE,
    rootVolumeId,
    networkInterfaces: world.config.networkInterfacesPerInstance,
    tags: new Map([...Object.entries(instanceTagsFor(clusterName)), ['Name', node.name]]),
  };
  world.instances.set(instance.instanceId, instance);
  world.volumes.set(rootVolumeId, {
    volumeId: rootVolumeId,
    zone: node.zone,
    size: 80,
    volumeType: 'gp3',
    encrypted: true,
    kmsKeyId: awsManagedEbsKeyArn(regionOfZone(node.zone), world.config.ownerId),
    multiAttachEnabled: false,
    createTime: now,
    tags: new Map(),
    attachments: new Map([[node.instanceId, attachmentOf(rootVolumeId, node.instanceId, ROOT_DEVICE, now, world, true)]]),
  });
  return instance;
}

/** A data volume in EC2, not attached. `multiAttachEnabled` defaults to the volume's own (io2 Multi-Attach). */
export function addVolume(
  world: World,
  volume: GenVolume,
  options: { multiAttachEnabled?: boolean; clusterName?: string } = {},
): SandboxVolume {
  const created = volumeOf(volume, world.clock.now(), options.clusterName ?? GENERATED_CLUSTER);
  // Encrypted as under EBS encryption by default: EC2 names the account's aws/ebs key.
  created.kmsKeyId = awsManagedEbsKeyArn(regionOfZone(volume.zone), world.config.ownerId);
  if (options.multiAttachEnabled !== undefined) created.multiAttachEnabled = options.multiAttachEnabled;
  world.volumes.set(volume.volumeId, created);
  return created;
}

function volumeOf(volume: GenVolume, now: number, clusterName: string): SandboxVolume {
  return {
    volumeId: volume.volumeId,
    zone: volume.zone,
    size: volume.sizeGiB,
    volumeType: volume.volumeType,
    encrypted: true,
    multiAttachEnabled: volume.multiAttach,
    createTime: now,
    attachments: new Map(),
    tags: new Map([
      ...Object.entries(volumeTagsFor(clusterName)),
      ['kubernetes.io/created-for/pvc/name', volume.claim.name],
      ['kubernetes.io/created-for/pv/name', volume.pvName],
    ]),
    ...(volume.iops === undefined ? {} : { iops: volume.iops }),
  };
}

function attachmentOf(
  volumeId: string,
  instanceId: string,
  device: string,
  now: number,
  world: World,
  deleteOnTermination = false,
): SandboxAttachment {
  // Started one attach delay ago: already `attached` at `now`.
  const since = now - world.config.delays.attachMs;
  return { volumeId, instanceId, device, attachTime: since, deleteOnTermination, phase: 'attach', since, stuck: false };
}

function attachInEc2(world: World, attachment: GenAttachment, instanceId: string, now: number): void {
  const volume = world.volumes.get(attachment.volumeId);
  if (!volume) throw new Error(`seed: volume ${attachment.volumeId} is not in EC2`);
  volume.attachments.set(instanceId, attachmentOf(attachment.volumeId, instanceId, attachment.device, now, world));
}

/** The Kubernetes side: every object, status included, through the sandbox's seed API. */
export function seedKube(kube: Pick<KubeSandbox, 'seed'>, cluster: GeneratedCluster): void {
  const objects = clusterObjects(cluster);
  for (let i = 0; i < objects.length; i += 1_000) kube.seed(objects.slice(i, i + 1_000));
}
