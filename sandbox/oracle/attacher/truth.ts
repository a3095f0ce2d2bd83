/**
 * Attacher mode's ground truth beyond `readTruth`: each VolumeAttachment of the EBS driver as the
 * API server holds it, resolved to its volume and to every instance it could stand for. Read from
 * the objects themselves, never through the controller's own resolution (core/attacher).
 */
import { ATTACHER_FINALIZER, NODE_ID_ANNOTATION } from '../../../lambda/core/attacher/names.js';
import type { KubeCsiNode, KubeNode, KubePv, KubeVolumeAttachment } from '../../../lambda/core/kube.js';
import { EBS_CSI_DRIVER } from '../../../lambda/core/types.js';
import type { KubeSandbox } from '../../kube/index.js';

export interface VaFact {
  name: string;
  nodeName: string;
  volumeId: string | undefined;
  /** kcm deleted it (deletionTimestamp): it asks for a detach. */
  deleting: boolean;
  /** Carries our finalizer (external-attacher/ebs-csi-aws-com). */
  finalized: boolean;
  attached: boolean;
  /** The node's instance now: its providerID, else its CSINode's EBS nodeID. */
  nodeInstance: string | undefined;
  /** Every instance the object may stand for: the node's now and the one our attach annotated. */
  instances: string[];
}

export type VaSide = Pick<KubeSandbox, 'list'>;

const providerInstance = (node: KubeNode | undefined) => /\/(i-[0-9a-f]+)$/.exec(node?.spec?.providerID ?? '')?.[1];

export function readVaFacts(kube: VaSide): VaFact[] {
  const pvs = new Map((kube.list('PersistentVolume') as KubePv[]).map((pv) => [pv.metadata.name, pv]));
  const nodes = new Map((kube.list('Node') as KubeNode[]).map((n) => [n.metadata.name, n]));
  const csiNodes = new Map((kube.list('CSINode') as KubeCsiNode[]).map((c) => [c.metadata.name, c]));
  return (kube.list('VolumeAttachment') as KubeVolumeAttachment[])
    .filter((va) => va.spec.attacher === EBS_CSI_DRIVER)
    .map((va) => {
      const source = va.spec.source;
      const pv = source.persistentVolumeName ? pvs.get(source.persistentVolumeName) : undefined;
      const volumeId = pv?.spec?.csi?.volumeHandle ?? source.inlineVolumeSpec?.csi?.volumeHandle ?? undefined;
      const registered = csiNodes.get(va.spec.nodeName)?.spec?.drivers?.find((d) => d.name === EBS_CSI_DRIVER)?.nodeID ?? undefined;
      const nodeInstance = providerInstance(nodes.get(va.spec.nodeName)) ?? registered;
      const annotated = va.metadata.annotations?.[NODE_ID_ANNOTATION];
      const instances = [...new Set([nodeInstance, registered, annotated].filter((i): i is string => i !== undefined && i !== ''))];
      return {
        name: va.metadata.name ?? '',
        nodeName: va.spec.nodeName,
        volumeId,
        deleting: Boolean(va.metadata.deletionTimestamp),
        finalized: (va.metadata.finalizers ?? []).includes(ATTACHER_FINALIZER),
        attached: va.status?.attached === true,
        nodeInstance,
        instances,
      };
    });
}
