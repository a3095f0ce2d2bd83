/**
 * The pieces of a small cluster made the way a real one is: EC2 instances through RunInstances, EBS
 * volumes through CreateVolume, and the matching Node, PV, PVC and Pod objects (world.ts for tests,
 * seed-main.ts for a newcomer's sandbox).
 */
import { SANDBOX_IMAGE_ID } from './ec2/state/images.js';
import { createHash } from 'node:crypto';
import { CreateVolumeCommand, RunInstancesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import type { GenNode, GenPod, GenVolume } from './generate/model.js';
import { instanceTagsFor, volumeTagsFor } from './cluster-tags.js';

export interface VolumeOptions {
  zone: string;
  /** The cluster whose tags it carries (the EBS CSI driver's, with k8sTagClusterId); none when unset. */
  cluster?: string;
  /** Encrypted with this customer-managed KMS key. */
  kmsKeyId?: string;
  /** Encrypted without naming a key: under the account's aws/ebs key, as EBS encryption by default does. */
  encrypted?: boolean;
  name?: string;
  namespace?: string;
  multiAttach?: boolean;
}

/** CreateVolume, and the generated PV and PVC that will name it (ReadWriteOnce unless `multiAttach`). */
export async function createGenVolume(client: EC2Client, options: VolumeOptions): Promise<GenVolume> {
  const created = await client.send(
    new CreateVolumeCommand({
      AvailabilityZone: options.zone,
      Size: 10,
      VolumeType: options.multiAttach ? 'io2' : 'gp3',
      ...(options.multiAttach ? { Iops: 1000, MultiAttachEnabled: true } : {}),
      ...(options.kmsKeyId === undefined ? {} : { Encrypted: true, KmsKeyId: options.kmsKeyId }),
      ...(options.encrypted === true ? { Encrypted: true } : {}),
      ...tagSpecification('volume', options.cluster === undefined ? {} : volumeTagsFor(options.cluster)),
    }),
  );
  return genVolume(created.VolumeId as string, options.zone, options);
}

function tagSpecification(resourceType: 'volume' | 'instance', tags: Record<string, string>) {
  const list = Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
  return list.length === 0 ? {} : { TagSpecifications: [{ ResourceType: resourceType, Tags: list }] };
}

export async function runNode(client: EC2Client, name: string, zone: string, cluster?: string): Promise<GenNode> {
  const ran = await client.send(
    new RunInstancesCommand({
      ImageId: SANDBOX_IMAGE_ID,
      InstanceType: 'm6i.xlarge',
      MinCount: 1,
      MaxCount: 1,
      Placement: { AvailabilityZone: zone },
      ...tagSpecification('instance', cluster === undefined ? {} : instanceTagsFor(cluster)),
    }),
  );
  return { name, instanceId: ran.Instances?.[0]?.InstanceId as string, zone, instanceType: 'm6i.xlarge' };
}

/** A UID derived from what it names: a world built twice has the same objects. */
function uidOf(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('/')).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function genVolume(volumeId: string, zone: string, options: { name?: string; namespace?: string; multiAttach?: boolean }): GenVolume {
  const name = options.name ?? `data-${volumeId.slice(-6)}`;
  return {
    volumeId,
    zone,
    volumeType: options.multiAttach ? 'io2' : 'gp3',
    sizeGiB: 10,
    multiAttach: options.multiAttach === true,
    pvName: `pvc-${uidOf('pv', volumeId)}`,
    pvUid: uidOf('pv-uid', volumeId),
    claim: { namespace: options.namespace ?? 'default', name, uid: uidOf('pvc', volumeId) },
    accessModes: options.multiAttach ? ['ReadWriteMany'] : ['ReadWriteOnce'],
    volumeMode: options.multiAttach ? 'Block' : 'Filesystem',
  };
}

/**
 * A pod on `nodeName` that mounts the claims (Pending and unscheduled when nodeName is undefined).
 * `phase`: Running by default; a pod just bound to its node is Pending until its kubelet has mounted its volumes.
 */
export function genPod(
  name: string,
  namespace: string,
  claims: string[],
  nodeName: string | undefined,
  phase: GenPod['phase'] = 'Running',
): GenPod {
  return {
    namespace,
    name,
    uid: uidOf('pod', namespace, name),
    app: name,
    owner: { kind: 'StatefulSet', name, uid: uidOf('owner', namespace, name) },
    ...(nodeName === undefined ? {} : { nodeName }),
    claims,
    phase: nodeName === undefined ? 'Pending' : phase,
  };
}
