/**
 * One sentence per code: why the volume is or is not attached, what happens next and when. The
 * record type lists every skip, wait and state code, so a new code in the core does not compile
 * until it is explained here.
 */
import type { ChainCode } from './types.js';

export interface Facts {
  volume: string;
  node: string;
  /** The core's reason (skip, deferral, hold-back) or the action's reason. */
  reason: string;
  /** Seconds until the next thing happens, when known. */
  inSeconds?: number;
}

const NEXT_PASS = 'the next pass (by default within a minute; `ebs-attach-detach reconcile` runs one now)';
const when = (f: Facts, fallback = NEXT_PASS) => (f.inSeconds === undefined ? fallback : `in ${f.inSeconds} s`);

const SENTENCES: Record<ChainCode, (f: Facts) => string> = {
  // The desired-state builder skipped the pod volume.
  'claim-not-found': (f) => `Not attached: ${f.reason}; it is attached on the first pass after the claim is created and bound.`,
  'claim-not-owned': (f) => `Not attached: ${f.reason}; nothing happens until the ephemeral-volume controller creates the pod's own claim.`,
  'claim-unbound': (f) => `Not attached: ${f.reason}; it is attached on the first pass after the PV controller binds the claim.`,
  'pv-not-found': (f) => `Not attached: ${f.reason}; nothing happens until that PV exists.`,
  'pv-not-bound-back': (f) => `Not attached: ${f.reason}; it is attached on the first pass after the PV controller completes the binding.`,
  'pv-claim-mismatch': (f) => `Not attached: ${f.reason}; nothing happens until the PV and the claim are bound to each other.`,
  'invalid-volume-id': (f) =>
    `Not attached, and never will be as written: ${f.reason}; the pod gets a FailedAttachVolume event on every pass until the volume source is fixed.`,
  'capability-refused': (f) =>
    `Not attached, and never will be as written: ${f.reason}; the pod gets a FailedAttachVolume event on every pass until the PV asks for ReadWriteOnce, ReadWriteOncePod, or ReadWriteMany with volumeMode Block.`,
  'node-not-found': (f) => `Not attached: ${f.reason}; nothing happens until the pod runs on a node that exists.`,
  'node-unmanaged': (f) =>
    f.reason.startsWith('pod ')
      ? `Not attached by this controller: ${f.reason}; nothing happens here until the kubelet registers the node with that annotation.`
      : `Left alone on ${f.node}: ${f.reason}; this controller never detaches there.`,
  'node-no-instance': (f) => `Not attached: ${f.reason}; nothing happens until the node's providerID names its EC2 instance.`,
  // The plan deferred the attach or the detach.
  'previous-instance': (f) => `Not attached to ${f.node} yet: ${f.reason}, on ${NEXT_PASS}, and attached here on the pass after that.`,
  'instance-not-running': (f) =>
    `Not attached: ${f.reason}; nothing is attached to it, and the volume follows the pod once it runs elsewhere.`,
  'lock-held': (f) =>
    `Waiting for the volume's lock: ${f.reason}; the next step follows on the first pass after it finishes (at the latest ${when(f)}).`,
  'lease-expired': (f) => `Waiting: ${f.reason}; ${NEXT_PASS} asks EC2 what that operation did and carries on from there.`,
  'backing-off': (f) => `Waiting after failures: ${f.reason}; the next try is ${when(f)}.`,
  'attachment-limit': (f) => `Not attached to ${f.node}: ${f.reason}.`,
  'planned-this-pass': (f) => `Waiting its turn: ${f.reason}; it follows on ${NEXT_PASS}.`,
  'attach-unverified': (f) =>
    `Attaching on ${f.node}: ${f.reason}; ${NEXT_PASS} asks EC2 and detaches and retries it if it is stuck past the limit.`,
  'attach-in-progress': (f) =>
    `Attaching on ${f.node}: EC2 is still attaching; if it is still attaching ${when(f, 'past the stuck-attach limit')} it is detached and retried from scratch.`,
  'stuck-but-mounted': (f) => `Attached and in use on ${f.node}: ${f.reason}; it is left alone while a Ready node has it mounted.`,
  'incomplete-input': (f) => `Left alone: ${f.reason}; it is decided on the first pass that reads every pod.`,
  'mounted-on-ready-node': (f) =>
    `Still attached to ${f.node} though no pod there needs it: ${f.reason}; it is detached on the first pass after the kubelet unmounts it.`,
  'force-detach-disabled': (f) =>
    `Still attached: ${f.reason} (MAX_WAIT_FOR_UNMOUNT_SECONDS=disabled); it stays until the kubelet unmounts it or the node is tainted out-of-service.`,
  'waiting-for-unmount-timeout': (f) =>
    `Still attached: ${f.reason}; it is force-detached ${when(f)} (MAX_WAIT_FOR_UNMOUNT_SECONDS), sooner if the kubelet unmounts it.`,
  'not-released': (f) => `Attached to ${f.node}, and no VolumeAttachment asks for it: ${f.reason}; it stays until kcm says otherwise.`,
  'mass-detach-guard': (f) => `Still attached to ${f.node}: ${f.reason}; a later pass detaches it once fewer detaches are pending.`,
  // Where the chain stands otherwise.
  attached: (f) => `Attached to ${f.node} and reported on the node: nothing to do.`,
  'not-reported': (f) => `Attached to ${f.node} but not yet in the node's volumesAttached; ${NEXT_PASS} reports it.`,
  'will-attach': (f) => `Not attached to ${f.node} yet (${f.reason}); ${NEXT_PASS} attaches it.`,
  'not-authorized': (f) =>
    `Not attached to ${f.node}: not authorized: ${f.reason}; it is attached on the first pass after that is put right (the tag added, or the key granted).`,
  'will-detach': (f) => `Attached to ${f.node}, to be detached (${f.reason}); ${NEXT_PASS} detaches it.`,
  'will-resolve': (f) => `An operation on ${f.volume} lost its lease; ${NEXT_PASS} asks EC2 what it did and carries on from there.`,
  'multi-attach': (f) =>
    `Not attached to ${f.node}: ${f.reason}; the pods get a Multi-Attach error, and it is attached here on the first pass after it is detached there.`,
  'not-desired': (f) =>
    f.volume === '-'
      ? `No scheduled pod on ${f.node} needs an EBS volume and none is attached there: nothing to do.`
      : `Not attached, and no scheduled pod needs ${f.volume}${f.node === '-' ? '' : ` on ${f.node}`}: nothing to do.`,
  'pod-not-found': (f) => `No such pod: ${f.reason}.`,
  'pod-not-scheduled': (f) => `Not attached: ${f.reason}; it is attached on the first pass after the scheduler places the pod.`,
  'pod-terminated': (f) => `Not needed any more: ${f.reason}; the volume is detached from its node once the kubelet has unmounted it.`,
  'no-ebs-volumes': (f) => `Nothing to attach: ${f.reason}.`,
  unknown: (f) => `Unknown: ${f.reason}.`,
};

export function sentenceFor(code: ChainCode, facts: Facts): string {
  return SENTENCES[code](facts);
}

/** The codes with a sentence: every code explain can reach. */
export const EXPLAINED_CODES = Object.keys(SENTENCES) as ChainCode[];
