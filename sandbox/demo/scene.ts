/**
 * What a chapter of the story works with, and the checks it states about the outcome: each
 * check reads ground truth (EC2's model, the API server's objects), never the controller.
 */
import { volumeAttachmentName } from '../../lambda/adapters/kubernetes/volume-attachment-name.js';
import { uniqueNameFor } from '../../lambda/core/volume-id.js';
import type { GenNode, GenPod, GenVolume } from '../generate/model.js';
import type { Actors } from './actors.js';
import type { Director } from './director.js';
import { ec2Attachment } from '../oracle/truth.js';

export interface Check {
  name: string;
  ok: boolean;
  detail?: string;
}

interface Scene {
  director: Director;
  actors: Actors;
  /** A line of narration (shown in the live view and the log). */
  say: (line: string) => void;
}

export interface Chapter {
  title: string;
  play(scene: Scene): Promise<Check[]>;
}

export function check(name: string, ok: boolean, detail?: string): Check {
  return detail === undefined ? { name, ok } : { name, ok, detail };
}

/** Attached in EC2, listed in the node's volumesAttached at EC2's device, and its VolumeAttachment says attached. */
export function served(director: Director, volume: GenVolume, node: GenNode): Check {
  const truth = director.truth();
  const ec2 = ec2Attachment(truth, volume.volumeId, node.instanceId);
  const reported = truth.nodes.get(node.name)?.volumesAttached.find((v) => v.name === uniqueNameFor(volume.volumeId));
  const va = truth.volumeAttachments.find((v) => v.name === volumeAttachmentName(volume.volumeId, node.name));
  const ok = ec2?.state === 'attached' && reported?.devicePath === ec2.device && va?.attached === true && va.devicePath === ec2.device;
  return check(
    `${volume.volumeId} attached to ${short(node)} and reported`,
    ok,
    `EC2 ${ec2?.state ?? 'not attached'}, node status ${reported?.devicePath ?? 'not listed'}, VolumeAttachment ${va ? `attached=${va.attached}` : 'missing'}`,
  );
}

export function notAttached(director: Director, volume: GenVolume, node: GenNode): Check {
  const state = ec2Attachment(director.truth(), volume.volumeId, node.instanceId)?.state;
  return check(`${volume.volumeId} no longer attached to ${short(node)}`, state === undefined, `EC2 ${state ?? 'not attached'}`);
}

export function stillAttached(director: Director, volume: GenVolume, node: GenNode): Check {
  const state = ec2Attachment(director.truth(), volume.volumeId, node.instanceId)?.state;
  return check(`${volume.volumeId} still attached to ${short(node)}`, state === 'attached', `EC2 ${state ?? 'not attached'}`);
}

/** The Warning events recorded on a pod, newest last. */
export function podEvents(director: Director, pod: GenPod, reason: string): { message: string }[] {
  return (director.stage.kube.list('Event', pod.namespace) as { reason?: string; message?: string; involvedObject?: { name?: string } }[])
    .filter((e) => e.reason === reason && e.involvedObject?.name === pod.name)
    .map((e) => ({ message: e.message ?? '' }));
}

export function short(node: GenNode): string {
  return node.name.replace('.ec2.internal', '');
}

export function scheduledEvent(pod: GenPod) {
  return {
    object: { kind: 'Pod' as const, namespace: pod.namespace, name: pod.name, uid: pod.uid },
    reason: 'Scheduled',
    message: `Successfully assigned ${pod.namespace}/${pod.name} to ${pod.nodeName ?? ''}`,
  };
}

export function killingEvent(pod: GenPod) {
  return {
    object: { kind: 'Pod' as const, namespace: pod.namespace, name: pod.name, uid: pod.uid },
    reason: 'Killing',
    message: `Stopping container ${pod.app}`,
  };
}
