/**
 * What a transition of a volume record returns, and the small helpers every transition shares.
 * Records are never mutated: a transition clones, changes the clone and returns it.
 */
import {
  UNIQUE_NAME_PREFIX,
  type AttachmentState,
  type Ec2AttachmentState,
  type UniqueVolumeName,
  type VolumeId,
  type VolumeRecord,
} from './types.js';

export type RefusalCode =
  | 'locked' // a live operation holds the lock key
  | 'expired-operation' // an expired operation holds the lock key: resolve it against EC2 first
  | 'backoff' // the operation key is backing off after a failure
  | 'multi-attach' // exclusive volume attached to, or in operation on, another node
  | 'no-attachment' // the node has no attachment of this volume
  | 'not-holder' // the operation is not on the record (finished, or taken over by another pass)
  | 'wrong-kind' // e.g. completing a detach as an attach
  | 'lease-live' // taking over or resolving an operation whose lease has not expired
  | 'wrong-target' // an EC2 view of another volume or instance
  | 'listing'; // another pass is adding the volume to the node's list: no detach may begin

export type Transition = { ok: true; record: VolumeRecord } | { ok: false; refused: RefusalCode; reason: string };

export const accept = (record: VolumeRecord): Transition => ({ ok: true, record });
export const refuse = (refused: RefusalCode, reason: string): Transition => ({ ok: false, refused, reason });
export const clone = (record: VolumeRecord): VolumeRecord => structuredClone(record);

/** `{ key: value }`, or `{}` when value is undefined: records carry no undefined fields. */
export const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

/** A volume never stored (version 0); exclusive until an attach says otherwise. */
export function emptyRecord(volumeId: VolumeId, uniqueName?: UniqueVolumeName): VolumeRecord {
  return {
    volumeId,
    uniqueName: uniqueName ?? `${UNIQUE_NAME_PREFIX}${volumeId}`,
    accessModes: [],
    multiAttach: false,
    attachments: {},
    operations: {},
    backoff: {},
    version: 0,
  };
}

/** Our state for an attachment EC2 reports (`busy`: a detach the OS still blocks). */
export function observedState(state: Exclude<Ec2AttachmentState, 'detached'>): AttachmentState {
  return state === 'busy' ? 'detaching' : state;
}
