/**
 * Attacher mode's own invariants (README.md here), as pure functions of ground truth: EC2's
 * attachments (`Truth`) and kcm's VolumeAttachments as the API server holds them (`VaFact`).
 * A4 and A5 reuse the controller-mode checkers (`unknownToStore`, `exclusiveOnce`) under their names.
 */
import type { Violation } from '../checks.js';
import { ec2Attachment, type Truth } from '../truth.js';
import type { VaFact } from './truth.js';

const RUNNING = 'running';
const DEAD = new Set(['stopped', 'terminated']);

/**
 * A1: a live object saying `attached: true` names a volume EC2 has `attached` on the node's
 * instance. A stopped or terminated machine's objects go stale by themselves (EC2 releases a
 * terminated instance's volumes; kcm deletes the objects), so only running instances are held to it.
 */
export function vaOverclaims(truth: Truth, vas: readonly VaFact[]): Violation[] {
  return vas
    .filter((va) => va.attached && !va.deleting && va.volumeId !== undefined && va.nodeInstance !== undefined)
    .filter((va) => truth.instanceStates.get(va.nodeInstance ?? '') === RUNNING)
    .flatMap((va) => {
      const state = ec2Attachment(truth, va.volumeId ?? '', va.nodeInstance)?.state;
      if (state === 'attached') return [];
      return [
        {
          invariant: 'A1' as const,
          message: `VolumeAttachment ${va.name} says ${va.volumeId ?? '?'} is attached to ${va.nodeName}, EC2 has it ${state ?? 'not attached'} on ${va.nodeInstance ?? '?'}`,
        },
      ];
    });
}

/**
 * A2, judged just before EC2 carries out a DetachVolume: no live object asks for the pair EC2
 * holds `attached`. An `attaching` pair may go (a stuck attach is detached and retried, DESIGN §8:
 * never reported, so nothing can use it); so may a stopped or terminated machine's (no OS can be
 * using it, DESIGN §6). A released (deleting) object is kcm's request to detach.
 */
export function detachUnderLiveVa(truth: Truth, vas: readonly VaFact[], volumeId: string, instanceId: string | undefined): Violation[] {
  if (ec2Attachment(truth, volumeId, instanceId)?.state !== 'attached') return [];
  if (DEAD.has(truth.instanceStates.get(instanceId ?? '') ?? '')) return [];
  return vas
    .filter((va) => !va.deleting && va.volumeId === volumeId && instanceId !== undefined && va.instances.includes(instanceId))
    .map((va) => ({
      invariant: 'A2' as const,
      message: `DetachVolume ${volumeId} from ${instanceId ?? '?'} while VolumeAttachment ${va.name} (no deletionTimestamp) asks for it on ${va.nodeName}`,
    }));
}

const HELD = new Set(['attaching', 'attached', 'detaching', 'busy']);

/**
 * A3, judged when an object that carried our finalizer no longer does (or is gone): EC2 holds its
 * volume on none of the instances it stood for, in any state but gone. kcm deletes the object the
 * moment the finalizer goes and may attach the volume elsewhere at once.
 */
export function finalizerReleasedEarly(truth: Truth, before: VaFact, after: VaFact | undefined): Violation[] {
  if (!before.finalized || after?.finalized === true || before.volumeId === undefined) return [];
  return before.instances
    .map((instanceId) => ({ instanceId, state: ec2Attachment(truth, before.volumeId ?? '', instanceId)?.state }))
    .filter((held) => held.state !== undefined && HELD.has(held.state))
    .map((held) => ({
      invariant: 'A3' as const,
      message: `finalizer of VolumeAttachment ${before.name} removed while EC2 has ${before.volumeId ?? '?'} ${held.state ?? '?'} on ${held.instanceId}`,
    }));
}
