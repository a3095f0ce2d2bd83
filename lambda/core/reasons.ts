/**
 * Stable codes for every reason the desired-state builder skips a pod volume and every reason the
 * plan leaves a (volume, node) alone. The sentences that go with them may change; the codes do not:
 * operators' scripts, `explain` and the tests key on them.
 */

/** Why a pod volume is not in the desired state (DESIGN §6). */
export const SKIP_CODES = [
  /** The pod's PVC does not exist (yet). */
  'claim-not-found',
  /** A generic ephemeral volume's PVC exists but another pod (or none) controls it. */
  'claim-not-owned',
  /** The PVC is not Bound, or names no PV. */
  'claim-unbound',
  /** The PVC names a PV that does not exist. */
  'pv-not-found',
  /** The PV has no claimRef yet: the PV controller has not finished binding. */
  'pv-not-bound-back',
  /** The PV's claimRef names another claim (UID differs). */
  'pv-claim-mismatch',
  /** The PV or inline volume says EBS but its volume id is malformed. */
  'invalid-volume-id',
  /** The EBS CSI driver refuses the PV's access modes and volume mode (read-only-many, filesystem read-write-many, …). */
  'capability-refused',
  /** The pod's node object does not exist. */
  'node-not-found',
  /** The node lacks the controller-managed-attach-detach annotation: the kubelet attaches itself. */
  'node-unmanaged',
  /** The node's spec.providerID names no valid EC2 instance. */
  'node-no-instance',
] as const;

export type SkipCode = (typeof SKIP_CODES)[number];

/** Why the plan defers an attach or a detach this pass (it is re-planned on the next pass). */
export const WAIT_CODES = [
  /** Attached to a previous instance of the node: that attachment is detached first. */
  'previous-instance',
  /** EC2 reports the node's instance shutting down, terminated or unknown: nothing to attach to. */
  'instance-not-running',
  /** Another operation holds the volume's lock (lease not yet expired). */
  'lock-held',
  /** An operation's lease expired: it is resolved against EC2 first. */
  'lease-expired',
  /** The last attempts failed: backing off until a time, with EC2's last error. */
  'backing-off',
  /** EC2 answered AttachmentLimitExceeded for the node: no attach there until something detaches from it. */
  'attachment-limit',
  /** An action on the same lock is already planned in this pass. */
  'planned-this-pass',
  /** The record says attaching but EC2 was not asked this pass: a stuck attach is judged on EC2's word only. */
  'attach-unverified',
  /** EC2 is still attaching, within the stuck-attach limit. */
  'attach-in-progress',
  /** EC2 is stuck attaching, but the volume is reported and mounted on a Ready node. */
  'stuck-but-mounted',
  /** The cluster read was incomplete: nothing is detached on partial knowledge. */
  'incomplete-input',
  /** The attachment is on a node this controller does not manage. */
  'node-unmanaged',
  /** Still mounted on a Ready, in-service node: the kubelet must unmount first. */
  'mounted-on-ready-node',
  /** Mounted on a not-Ready (or gone) node and the force detach on timeout is disabled. */
  'force-detach-disabled',
  /** Mounted on a not-Ready (or gone) node: force detach once maxWaitForUnmount has passed. */
  'waiting-for-unmount-timeout',
  /** Attacher mode: no VolumeAttachment asks for this attachment, and kcm, not us, decides when to detach. */
  'not-released',
] as const;

export type WaitCode = (typeof WAIT_CODES)[number];

/** Detaches held back by the mass-detach guard carry this code. */
export const MASS_DETACH_GUARD = 'mass-detach-guard';

/** A reason with its stable code. */
export interface Coded<C extends string> {
  code: C;
  text: string;
}
