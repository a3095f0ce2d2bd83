/** The links of a chain, each as the object says it: pod, claim, PV, record, EC2, VolumeAttachment, node. */
import type { KubePod, KubePodVolume, KubePv, KubePvc } from '../../core/kube.js';
import { isMounted } from '../../core/nodes.js';
import { isPodTerminated } from '../../core/pods.js';
import { ephemeralClaimName, type ClaimLookup } from '../../core/pod-volumes.js';
import type { InstanceState, NodeView, VolumeObservation, VolumeRecord } from '../../core/types.js';
import type { Step } from './types.js';

const iso = (ms: number) => new Date(ms).toISOString();
const inS = (ms: number, now: number) => `${Math.max(0, Math.ceil((ms - now) / 1000))} s`;

export function podStep(pod: KubePod): Step {
  const where = pod.spec?.nodeName ? `on node ${pod.spec.nodeName}` : 'not scheduled to a node';
  const ended = isPodTerminated(pod) ? ', terminated' : '';
  return { kind: 'pod', says: `${pod.metadata.namespace}/${pod.metadata.name}: ${pod.status?.phase ?? 'no phase'}, ${where}${ended}` };
}

/** The claim a pod volume uses, or undefined for an inline volume. */
export function claimNameOf(pod: KubePod, volume: KubePodVolume): string | undefined {
  if (volume.persistentVolumeClaim) return volume.persistentVolumeClaim.claimName;
  if (volume.ephemeral) return ephemeralClaimName(pod.metadata.name ?? '', volume.name);
  return undefined;
}

function claimStep(namespace: string, claimName: string, pvc: KubePvc | undefined): Step {
  if (!pvc) return { kind: 'claim', says: `PVC ${namespace}/${claimName}: not found` };
  const bound = pvc.spec?.volumeName ? `, volumeName ${pvc.spec.volumeName}` : ', no volumeName';
  return { kind: 'claim', says: `PVC ${namespace}/${claimName}: ${pvc.status?.phase ?? 'no phase'}${bound}` };
}

function pvStep(name: string, pv: KubePv | undefined): Step {
  if (!pv) return { kind: 'pv', says: `PV ${name}: not found` };
  const spec = pv.spec ?? {};
  const source = spec.csi
    ? `CSI ${spec.csi.driver}, volumeHandle ${spec.csi.volumeHandle}`
    : spec.awsElasticBlockStore
      ? `in-tree awsElasticBlockStore ${spec.awsElasticBlockStore.volumeID}`
      : 'not an EBS volume';
  const ref = spec.claimRef ? `claimRef ${spec.claimRef.namespace ?? ''}/${spec.claimRef.name ?? ''}` : 'no claimRef';
  return { kind: 'pv', says: `PV ${name}: ${source}; ${(spec.accessModes ?? []).join(', ') || 'no access modes'}; ${ref}` };
}

function inlineStep(volume: KubePodVolume): Step {
  return { kind: 'pv', says: `inline awsElasticBlockStore volume ${volume.name}: volumeID ${volume.awsElasticBlockStore?.volumeID ?? ''}` };
}

/** Claim and PV steps of one pod volume (nothing for volumes of other kinds). */
export function sourceSteps(pod: KubePod, volume: KubePodVolume, lookup: ClaimLookup): Step[] {
  if (volume.awsElasticBlockStore) return [inlineStep(volume)];
  const claimName = claimNameOf(pod, volume);
  if (claimName === undefined) return [];
  const namespace = pod.metadata.namespace ?? '';
  const pvc = lookup.pvc(namespace, claimName);
  const steps = [claimStep(namespace, claimName, pvc)];
  const pvName = pvc?.spec?.volumeName;
  if (pvName) steps.push(pvStep(pvName, lookup.pv(pvName)));
  return steps;
}

export function recordStep(record: VolumeRecord | undefined, nodeName: string, now: number): Step {
  if (!record) return { kind: 'record', says: 'no record in the state table' };
  const a = record.attachments[nodeName];
  const parts = [
    a === undefined
      ? `no attachment on ${nodeName}`
      : `${a.state} on ${nodeName} (instance ${a.instanceId}, device ${a.device ?? 'unknown'}), reported ${a.reported ? 'yes' : 'no'}, mounted ${a.mounted ? 'yes' : 'no'}${a.detachRequestedAt === undefined ? '' : `, detach requested ${iso(a.detachRequestedAt)}`}`,
  ];
  for (const op of Object.values(record.operations)) {
    const lease =
      op.leaseExpiresAt > now
        ? `lease until ${iso(op.leaseExpiresAt)} (in ${inS(op.leaseExpiresAt, now)})`
        : `lease expired ${iso(op.leaseExpiresAt)}`;
    parts.push(`operation ${op.kind} ${op.id} on ${op.nodeName}, ${lease}`);
  }
  for (const [key, b] of Object.entries(record.backoff)) {
    const until = b.notBefore > now ? `next try ${iso(b.notBefore)} (in ${inS(b.notBefore, now)})` : 'may retry now';
    parts.push(`backoff ${key}: ${b.failures} failure(s), ${until}, last EC2 error: ${b.lastError}`);
  }
  const others = Object.keys(record.attachments).filter((n) => n !== nodeName);
  if (others.length > 0) parts.push(`also on ${others.join(', ')}`);
  return { kind: 'record', says: parts.join('; ') };
}

export function ec2Step(
  observation: VolumeObservation | undefined,
  instanceId: string | undefined,
  state: InstanceState | 'missing' | undefined,
): Step {
  const instance = instanceId === undefined ? '' : `; instance ${instanceId} ${state ?? 'not asked'}`;
  if (!observation) return { kind: 'ec2', says: `not asked${instance}` };
  if (!observation.exists) return { kind: 'ec2', says: `the volume does not exist${instance}` };
  const live = observation.attachments.filter((a) => a.state !== 'detached');
  const attachments = live.map(
    (a) => `${a.state} to ${a.instanceId} (${a.device}${a.attachTime === undefined ? '' : `, since ${iso(a.attachTime)}`})`,
  );
  return { kind: 'ec2', says: `${attachments.length === 0 ? 'available (attached nowhere)' : attachments.join(', ')}${instance}` };
}

export function nodeStep(view: NodeView | undefined, nodeName: string, uniqueName: string): Step {
  if (!view) return { kind: 'node', says: `${nodeName}: no node object` };
  const flags = [
    view.ready ? 'Ready' : 'not Ready',
    view.managed ? 'managed' : 'not managed',
    ...(view.outOfService ? ['out of service'] : []),
  ];
  const inUse = isMounted(view.volumesInUse, uniqueName) ? 'in volumesInUse' : 'not in volumesInUse';
  const reported = view.volumesAttached.some((v) => v.name === uniqueName) ? 'in volumesAttached' : 'not in volumesAttached';
  return { kind: 'node', says: `${nodeName}: ${flags.join(', ')}; ${inUse}; ${reported}` };
}
