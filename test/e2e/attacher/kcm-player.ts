/**
 * The test plays kcm's attach/detach controller: it registers the EBS node plugin on each node
 * (CSINode), creates the VolumeAttachment kcm would create for a (volume, node), and deletes it
 * through the API (our finalizer then holds it, with a deletionTimestamp, until we let go).
 */
import { createKubeClients, type KubeClients } from '../../../lambda/adapters/kubernetes/clients.js';
import { kubeConfigFromFile } from '../../../lambda/adapters/kubernetes/kubeconfig.js';
import { systemClock } from '../../../lambda/clock.js';
import type { KubePv, KubeVolumeAttachment } from '../../../lambda/core/kube.js';
import { EBS_CSI_DRIVER } from '../../../lambda/core/types.js';
import { volumeAttachmentName } from '../../../lambda/adapters/kubernetes/volume-attachment-name.js';
import { csiNodeObject } from '../../../sandbox/generate/kube-objects.js';
import type { World } from '../../../sandbox/world.js';

export interface KcmPlayer {
  /** kcm's VolumeAttachment for a PV (or, with `inline`, for the volume handle written in a pod). */
  attach(source: { pvName: string; volumeId: string } | { inline: string }, nodeName: string): Promise<string>;
  detach(name: string): Promise<void>;
  /** The EBS node plugin's registration gone (CSINode deleted), as when a node is being torn down. */
  unregister(nodeName: string): Promise<void>;
  va(name: string): KubeVolumeAttachment | undefined;
  pv(name: string): KubePv | undefined;
  close(): Promise<void>;
}

export function kcmPlayer(world: World): KcmPlayer {
  world.kube.seed(world.nodes.map((node) => csiNodeObject(node)));
  const clients: KubeClients = createKubeClients(kubeConfigFromFile(world.kube.kubeconfigPath), { clock: systemClock });
  return {
    attach: async (source, nodeName) => {
      const handle = 'inline' in source ? source.inline : source.volumeId;
      const name = volumeAttachmentName(handle, nodeName);
      const spec =
        'inline' in source
          ? { inlineVolumeSpec: { csi: { driver: EBS_CSI_DRIVER, volumeHandle: source.inline }, accessModes: ['ReadWriteOnce'] } }
          : { persistentVolumeName: source.pvName };
      await clients.storage.createVolumeAttachment({
        body: { metadata: { name }, spec: { attacher: EBS_CSI_DRIVER, nodeName, source: spec } },
      });
      return name;
    },
    detach: async (name) => {
      await clients.storage.deleteVolumeAttachment({ name });
    },
    unregister: async (nodeName) => {
      await clients.storage.deleteCSINode({ name: nodeName });
    },
    va: (name) => world.kube.get('VolumeAttachment', undefined, name) as KubeVolumeAttachment | undefined,
    pv: (name) => world.kube.get('PersistentVolume', undefined, name) as KubePv | undefined,
    close: () => clients.close(),
  };
}
