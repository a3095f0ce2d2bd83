/**
 * Ground truth, read from the sandboxes themselves (EC2's model and the API server's objects),
 * never from the controller: the invariant checks compare what the controller did with this.
 */
import { attachmentState, type AttachmentStateName } from '../ec2/state/lifecycle.js';
import type { World } from '../ec2/state/model.js';
import type { KubeNode, KubePod, KubePv, KubePvc, KubeVolumeAttachment } from '../../lambda/core/kube.js';
import type { KubeSandbox } from '../kube/index.js';
import { desiredPairs, type DesiredPair } from './desired.js';

export interface Ec2Side {
  world: World;
  settle(): number;
}

export type KubeSide = Pick<KubeSandbox, 'list'>;

export interface TruthAttachment {
  volumeId: string;
  instanceId: string;
  device: string;
  state: AttachmentStateName;
  /** When AttachVolume was accepted (epoch ms). */
  attachedAt?: number;
}

export interface TruthNode {
  name: string;
  instanceId?: string;
  ready: boolean;
  outOfService: boolean;
  volumesInUse: string[];
  volumesAttached: { name: string; devicePath: string }[];
}

interface TruthVolumeAttachment {
  name: string;
  nodeName: string;
  attached: boolean;
  devicePath?: string;
}

export interface Truth {
  at: number;
  /** EC2 attachments of data volumes (root volumes left out), in every state but `detached`. */
  attachments: TruthAttachment[];
  instanceStates: Map<string, string>;
  nodes: Map<string, TruthNode>;
  /** Volume ids whose PV allows only one node (access modes only RWO / RWOP). */
  exclusive: Set<string>;
  desired: DesiredPair[];
  volumeAttachments: TruthVolumeAttachment[];
}

const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';

export function readTruth(ec2: Ec2Side, kube: KubeSide): Truth {
  const now = ec2.settle();
  const world = ec2.world;
  const roots = new Set([...world.instances.values()].map((i) => i.rootVolumeId));
  const attachments: TruthAttachment[] = [];
  for (const volume of world.volumes.values()) {
    if (roots.has(volume.volumeId)) continue;
    for (const a of volume.attachments.values()) {
      attachments.push({
        volumeId: volume.volumeId,
        instanceId: a.instanceId,
        device: a.device,
        state: attachmentState(a, now, world.config.delays),
        attachedAt: a.attachTime,
      });
    }
  }
  const pvs = kube.list('PersistentVolume') as KubePv[];
  const nodes = kube.list('Node') as KubeNode[];
  return {
    at: now,
    attachments,
    instanceStates: new Map([...world.instances.values()].map((i) => [i.instanceId, i.state])),
    nodes: new Map(nodes.map((n) => [n.metadata.name ?? '', nodeOf(n)])),
    exclusive: new Set(pvs.filter(isExclusive).map((pv) => pv.spec?.csi?.volumeHandle ?? '')),
    desired: desiredPairs(nodes, kube.list('Pod') as KubePod[], kube.list('PersistentVolumeClaim') as KubePvc[], pvs),
    volumeAttachments: (kube.list('VolumeAttachment') as KubeVolumeAttachment[]).map(vaOf),
  };
}

function nodeOf(node: KubeNode): TruthNode {
  const instanceId = /\/(i-[0-9a-f]+)$/.exec(node.spec?.providerID ?? '')?.[1];
  const conditions = node.status?.conditions ?? [];
  return {
    name: node.metadata.name ?? '',
    ...(instanceId === undefined ? {} : { instanceId }),
    ready: conditions.some((c) => c.type === 'Ready' && c.status === 'True'),
    outOfService: (node.spec?.taints ?? []).some((t) => t.key === OUT_OF_SERVICE),
    volumesInUse: node.status?.volumesInUse ?? [],
    volumesAttached: node.status?.volumesAttached ?? [],
  };
}

function isExclusive(pv: KubePv): boolean {
  const modes = pv.spec?.accessModes ?? [];
  return (
    pv.spec?.csi?.volumeHandle !== undefined && modes.length > 0 && modes.every((m) => m === 'ReadWriteOnce' || m === 'ReadWriteOncePod')
  );
}

function vaOf(va: KubeVolumeAttachment): TruthVolumeAttachment {
  const devicePath = va.status?.attachmentMetadata?.devicePath;
  return {
    name: va.metadata.name ?? '',
    nodeName: va.spec.nodeName,
    attached: va.status?.attached === true,
    ...(devicePath ? { devicePath } : {}),
  };
}

/** The attachment of `volumeId` to `instanceId` EC2 holds now, if any. */
export function ec2Attachment(truth: Truth, volumeId: string, instanceId: string | undefined): TruthAttachment | undefined {
  return truth.attachments.find((a) => a.volumeId === volumeId && a.instanceId === instanceId);
}
