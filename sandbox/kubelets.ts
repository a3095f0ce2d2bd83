/**
 * What each node's kubelet does with volumes, played between steps: once the controller reports a
 * volume attached (and, for CSI, its VolumeAttachment says so), the kubelet mounts it for the pods
 * that need it and lists it in `volumesInUse`; when no pod needs it any more it unmounts it. A node
 * that is not Ready has no working kubelet: its status stays as it was.
 */
import { volumeAttachmentName } from '../lambda/adapters/kubernetes/volume-attachment-name.js';
import type { KubeNode, KubePod, KubePv, KubePvc, KubeVolumeAttachment } from '../lambda/core/kube.js';
import type { KubeSandbox } from './kube/index.js';
import { desiredPairs } from './oracle/desired.js';

/** Returns how many nodes changed their volumesInUse. */
export function runKubelets(kube: Pick<KubeSandbox, 'list' | 'kubelet'>): number {
  const nodes = kube.list('Node') as KubeNode[];
  const needed = Map.groupBy(
    desiredPairs(
      nodes,
      kube.list('Pod') as KubePod[],
      kube.list('PersistentVolumeClaim') as KubePvc[],
      kube.list('PersistentVolume') as KubePv[],
    ),
    (p) => p.nodeName,
  );
  const attachedVas = new Set(
    (kube.list('VolumeAttachment') as KubeVolumeAttachment[]).filter((va) => va.status?.attached === true).map((va) => va.metadata.name),
  );
  let changed = 0;
  for (const node of nodes) {
    const name = node.metadata.name ?? '';
    if (!(node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')) continue;
    const reported = new Set((node.status?.volumesAttached ?? []).map((v) => v.name));
    const inUse = new Set(node.status?.volumesInUse ?? []);
    const next = (needed.get(name) ?? [])
      .filter((p) => inUse.has(p.uniqueName) || (reported.has(p.uniqueName) && attachedVas.has(volumeAttachmentName(p.volumeId, name))))
      .map((p) => p.uniqueName)
      .sort();
    if (next.join() === [...inUse].sort().join()) continue;
    kube.kubelet.setVolumesInUse(name, next);
    changed += 1;
  }
  return changed;
}
