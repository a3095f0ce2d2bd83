/**
 * Checks of the attacher story: what external-attacher leaves on a VolumeAttachment and its PV,
 * what kcm wrote on the node and what the kubelet did, all read from the API server's objects and
 * EC2's model (never from the controller).
 */
import { volumeAttachmentName } from '../../lambda/adapters/kubernetes/volume-attachment-name.js';
import { ATTACHER_FINALIZER, NODE_ID_ANNOTATION } from '../../lambda/core/attacher/names.js';
import type { KubeNode, KubePv, KubeVolumeAttachment } from '../../lambda/core/kube.js';
import { uniqueNameFor } from '../../lambda/core/volume-id.js';
import type { GenNode, GenVolume } from '../generate/model.js';
import { ec2Attachment } from '../oracle/truth.js';
import type { Director } from './director.js';
import { check, short, type Check } from './scene.js';

export function volumeAttachmentOf(director: Director, volume: GenVolume, node: GenNode): KubeVolumeAttachment | undefined {
  return director.stage.kube.get('VolumeAttachment', undefined, volumeAttachmentName(volume.volumeId, node.name)) as
    KubeVolumeAttachment | undefined;
}

/** Our marks before EC2 was called, and the status after: finalizers, node-id, attached with EC2's device. */
export function attachedByUs(director: Director, volume: GenVolume, node: GenNode): Check {
  const va = volumeAttachmentOf(director, volume, node);
  const pv = director.stage.kube.get('PersistentVolume', undefined, volume.pvName) as KubePv | undefined;
  const ec2 = ec2Attachment(director.truth(), volume.volumeId, node.instanceId);
  const marks = {
    'VA finalizer': va?.metadata.finalizers?.includes(ATTACHER_FINALIZER) === true,
    'node-id': va?.metadata.annotations?.[NODE_ID_ANNOTATION] === node.instanceId,
    'PV finalizer': pv?.metadata.finalizers?.includes(ATTACHER_FINALIZER) === true,
    'attached: true': va?.status?.attached === true,
    devicePath: ec2?.state === 'attached' && va?.status?.attachmentMetadata?.devicePath === ec2.device,
  };
  const missing = Object.entries(marks).filter(([, ok]) => !ok);
  return check(
    `${va?.metadata.name?.slice(0, 16) ?? 'VA'}… (${volume.volumeId} on ${short(node)}): finalizers, node-id ${node.instanceId}, attached at ${ec2?.device ?? '?'}`,
    missing.length === 0,
    `missing: ${missing.map(([name]) => name).join(', ')}; EC2 ${ec2?.state ?? 'not attached'}`,
  );
}

/** kcm listed the volume in volumesAttached (devicePath empty, as kcm writes it) and the kubelet mounted it. */
export function mountedAfterKcm(director: Director, volume: GenVolume, node: GenNode): Check {
  const status = (director.stage.kube.get('Node', undefined, node.name) as KubeNode | undefined)?.status;
  const name = uniqueNameFor(volume.volumeId);
  const listed = status?.volumesAttached?.find((v) => v.name === name);
  const inUse = status?.volumesInUse?.includes(name) === true;
  return check(
    `kcm lists ${volume.volumeId} in ${short(node)}'s volumesAttached; the kubelet mounted it`,
    listed?.devicePath === '' && inUse,
    `volumesAttached ${listed ? `devicePath "${listed.devicePath}"` : 'does not list it'}, volumesInUse ${inUse ? 'lists it' : 'does not'}`,
  );
}

export function volumeAttachmentGone(director: Director, volume: GenVolume, node: GenNode): Check {
  const va = volumeAttachmentOf(director, volume, node);
  return check(
    `the VolumeAttachment of ${volume.volumeId} on ${short(node)} is gone`,
    va === undefined,
    va ? `still there, finalizers ${JSON.stringify(va.metadata.finalizers ?? [])}` : undefined,
  );
}
