/**
 * The VolumeAttachments kcm will create for a pod that was just scheduled: one per EBS volume of
 * the pod, named from (handle, node) as the kubelet names them (the Cluster port reads them by that pair).
 * The handle is the PV's CSI volumeHandle as written, or, for in-tree `awsElasticBlockStore`
 * volumes (translated by CSI migration), the bare `vol-…` id. Volumes that are not EBS, or whose
 * claim is not bound yet, name nothing: kcm cannot attach those either.
 */
import type { KubePod, KubePv, KubePvc } from '../kube.js';
import { claimNamesOf } from '../pod-volumes.js';
import { EBS_CSI_DRIVER } from '../types.js';
import { ebsVolumeId, volumeOfInline, volumeOfPv } from '../volume-sources.js';

function handleOfPv(pv: KubePv): string | undefined {
  if (pv.spec?.csi?.driver === EBS_CSI_DRIVER) return pv.spec.csi.volumeHandle;
  return pv.spec?.awsElasticBlockStore ? ebsVolumeId(volumeOfPv(pv)) : undefined;
}

function handlesOf(pod: KubePod, pvcs: readonly KubePvc[], pvs: readonly KubePv[]): string[] {
  const namespace = pod.metadata.namespace ?? 'default';
  const handles = claimNamesOf(pod).flatMap((claim) => {
    const pvName = pvcs.find((c) => c.metadata.name === claim && (c.metadata.namespace ?? 'default') === namespace)?.spec?.volumeName;
    const pv = pvName === undefined ? undefined : pvs.find((p) => p.metadata.name === pvName);
    return pv === undefined ? [] : (handleOfPv(pv) ?? []);
  });
  const inline = (pod.spec?.volumes ?? []).flatMap((v) =>
    v.awsElasticBlockStore ? (ebsVolumeId(volumeOfInline(v.awsElasticBlockStore)) ?? []) : [],
  );
  return [...new Set([...handles, ...inline])];
}

/** One VolumeAttachment kcm will make: for this CSI volume handle on this node. */
export interface ExpectedAttachment {
  handle: string;
  nodeName: string;
}

/** The (handle, node) of each VolumeAttachment the pod's node will wait on; none while the pod is unscheduled. */
export function expectedAttachments(pod: KubePod, pvcs: readonly KubePvc[], pvs: readonly KubePv[]): ExpectedAttachment[] {
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) return [];
  return handlesOf(pod, pvcs, pvs)
    .sort()
    .map((handle) => ({ handle, nodeName }));
}
