/**
 * Which (volume, node) pairs scheduled pods need, computed independently of the controller's
 * core and deliberately conservative: a pod counts only while it is scheduled, not terminal and
 * not being deleted; a claim counts only when bound to a PV that names it back.
 */
import type { KubeNode, KubePod, KubePv, KubePvc } from '../../lambda/core/kube.js';
import { uniqueNameFor } from '../../lambda/core/volume-id.js';

export interface DesiredPair {
  volumeId: string;
  uniqueName: string;
  nodeName: string;
  pvName: string;
}

const MANAGED = 'volumes.kubernetes.io/controller-managed-attach-detach';

export function desiredPairs(nodes: KubeNode[], pods: KubePod[], pvcs: KubePvc[], pvs: KubePv[]): DesiredPair[] {
  const managed = new Set(nodes.filter((n) => n.metadata.annotations?.[MANAGED] === 'true').map((n) => n.metadata.name));
  const claims = new Map(pvcs.map((c) => [`${c.metadata.namespace}/${c.metadata.name}`, c]));
  const volumes = new Map(pvs.map((pv) => [pv.metadata.name, pv]));
  const pairs = new Map<string, DesiredPair>();
  for (const pod of pods) {
    const nodeName = pod.spec?.nodeName;
    if (!nodeName || !managed.has(nodeName) || !active(pod)) continue;
    for (const volume of pod.spec?.volumes ?? []) {
      const claim = claims.get(`${pod.metadata.namespace}/${volume.persistentVolumeClaim?.claimName}`);
      const pv = claim ? volumes.get(claim.spec?.volumeName) : undefined;
      const handle = pv?.spec?.csi?.volumeHandle;
      if (!pv?.metadata.name || !handle || pv.spec?.claimRef?.uid !== claim?.metadata.uid) continue;
      pairs.set(`${handle}|${nodeName}`, { volumeId: handle, uniqueName: uniqueNameFor(handle), nodeName, pvName: pv.metadata.name });
    }
  }
  return [...pairs.values()];
}

function active(pod: KubePod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}
