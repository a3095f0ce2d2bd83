/**
 * EBS through EC2 (DESIGN §8). Implemented by `adapters/ec2`. Every EC2 error is
 * classified here into a domain outcome; callers never see an AWS error code.
 */
import type { Ec2Attachment, Ec2AttachmentState, InstanceId, InstanceState, VolumeId, VolumeObservation } from '../core/types.js';

/**
 * Failures shared by attach and detach. `throttled` and `transient` may be retried; `failed` may not;
 * `unauthorized`: IAM (or the volume's KMS key) refused the role, which no retry changes until
 * someone fixes the tags or the policy.
 */
type CommonFailure =
  | { kind: 'throttled'; message: string }
  | { kind: 'transient'; message: string }
  | { kind: 'failed'; code: string; message: string }
  | { kind: 'unauthorized'; code: string; message: string };

export type AttachOutcome =
  /** EC2 accepted the attach; it is `attaching` on `device` since `attachTime` (EC2's AttachTime, epoch ms, when answered). */
  | { kind: 'started'; device: string; attachTime?: number }
  /** Already attached (or attaching) to this instance: success. */
  | { kind: 'already-attached'; device: string }
  /** `VolumeInUse`: attached to another instance. */
  | { kind: 'attached-elsewhere'; instanceIds: InstanceId[]; message: string }
  | { kind: 'volume-gone'; message: string }
  | { kind: 'instance-gone'; message: string }
  /** `AttachmentLimitExceeded`: final for this node until something detaches. */
  | { kind: 'limit-reached'; message: string }
  /** The chosen device was taken; the adapter avoids it next time. */
  | { kind: 'device-in-use'; device: string; message: string }
  | Withheld
  | CommonFailure;

export type DetachOutcome =
  | { kind: 'started' }
  /** `IncorrectState`, `InvalidAttachment.NotFound`, `InvalidVolume.NotFound`: nothing to detach. */
  | { kind: 'already-detached' }
  | Withheld
  | CommonFailure;

/** The request's `ready` said why not: nothing was sent (a claimed name is free again; a token taken is spent). */
type Withheld = { kind: 'withheld'; message: string };

/**
 * The caller's go-ahead for a call whose last preconditions are still in flight (the intent, the
 * VolumeAttachment's finalizer): the adapter prepares the call meanwhile (device name, the budget's
 * token for the first attempt) and sends it only once this resolves undefined. A reason, or a
 * rejection, withholds it. Absent: sent as soon as it is prepared.
 */
export type GoAhead = Promise<string | undefined>;

/**
 * Device names for one attach, claimed where every invocation sees them (the store), so two
 * invocations never send AttachVolume with the same name for one instance.
 */
export interface DeviceClaims {
  /** Claims the first name of `candidates` (in order) that nobody else holds; undefined when none is left. */
  claim(candidates: string[]): Promise<string | undefined>;
  /** EC2 refused the claimed name as "in use" (a device it does not report, e.g. from the AMI): keep it off the list. */
  refused(device: string): Promise<void>;
  /** The attach did not happen: the name is free again. */
  unused(device: string): Promise<void>;
}

/** One instance as DescribeInstances showed it: its state and the devices of its block device mappings. */
export interface SeenInstance {
  state: InstanceState | undefined;
  /** The instance's tags, as DescribeInstances returns them. */
  tags?: Record<string, string>;
  mappings: { device: string; volumeId: string | undefined }[];
}

export interface AttachRequest {
  volumeId: VolumeId;
  instanceId: InstanceId;
  devices: DeviceClaims;
  /**
   * The instance as this pass saw it, sparing the attach a DescribeInstances of its own. As good as a
   * fresh look: a device name attached since is still claimed in the store (claims last a lease).
   */
  seen?: SeenInstance;
  ready?: GoAhead;
}

export interface DetachRequest {
  volumeId: VolumeId;
  instanceId: InstanceId;
  /** DetachVolume Force: only when the instance is gone or the node is out of service. */
  force: boolean;
  ready?: GoAhead;
}

export interface WaitRequest {
  volumeId: VolumeId;
  instanceId: InstanceId;
  target: 'attached' | 'detached';
  /** Epoch ms after which the wait returns what it last saw. */
  deadline: number;
  /**
   * Asked with each attachment EC2 shows for this (volume, instance) and the time: true ends the wait
   * early, returning what was seen (e.g. an attach the caller judges stuck). The adapter holds no
   * threshold of its own; without it, only the target, a vanished volume or the deadline end the wait.
   */
  giveUp?: (seen: Ec2Attachment, now: number) => boolean;
  /**
   * True for an attachment EC2 shows that cannot be the one waited for (a leftover of an earlier
   * attachment, shown by a lagging read): the wait treats it as not seen.
   */
  leftover?: (seen: Ec2Attachment) => boolean;
}

export interface WaitResult {
  /** Last state seen for this (volume, instance); `detached` when no attachment exists. */
  state: Ec2AttachmentState;
  device?: string;
  reachedTarget: boolean;
  /** EC2's AttachTime of the attachment last seen (epoch ms), when there was one. */
  attachTime?: number;
}

/**
 * The next call on a pair, asked of EC2 with DryRun (the shadow's preflight): IAM is evaluated
 * with the real volume, instance and device, so tag conditions on either resource count; nothing
 * changes. An attach names no device: the adapter takes the first name the real attach would try
 * (without claiming it), from `seen` or a DescribeInstances of its own.
 */
export type PreflightRequest =
  | { action: 'attach'; volumeId: VolumeId; instanceId: InstanceId; seen?: SeenInstance }
  | { action: 'detach'; volumeId: VolumeId; instanceId: InstanceId; device?: string };

export type PreflightOutcome =
  /** `DryRunOperation`: the call would have been allowed. */
  | { kind: 'allowed'; call: string }
  /** `UnauthorizedOperation`: EC2's own words, which name the action, the resource and why. */
  | { kind: 'denied'; call: string; code: string; message: string }
  /** Throttled, EC2 unreachable, or any other answer: nothing proven either way. */
  | { kind: 'unanswered'; call: string; message: string };

export interface BlockStorage {
  attach(request: AttachRequest): Promise<AttachOutcome>;
  detach(request: DetachRequest): Promise<DetachOutcome>;
  /** AttachVolume or DetachVolume with DryRun, paced by the same budget as the real calls. Never throws. */
  preflight(request: PreflightRequest): Promise<PreflightOutcome>;
  /** Batched DescribeVolumes (≤ 500 ids a call). Unknown ids come back with `exists: false`. */
  describeVolumes(volumeIds: VolumeId[]): Promise<Map<VolumeId, VolumeObservation>>;
  /** The volumes attached to one instance (DescribeVolumes filtered by attachment.instance-id, all pages). */
  describeInstanceVolumes(instanceId: InstanceId): Promise<VolumeObservation[]>;
  /** Instance states; ids EC2 does not know come back `missing`. */
  describeInstances(instanceIds: InstanceId[]): Promise<Map<InstanceId, InstanceState | 'missing'>>;
  /** The same DescribeInstances, with each instance's block device mappings (what an attach chooses a device from). */
  observeInstances(instanceIds: InstanceId[]): Promise<Map<InstanceId, SeenInstance | 'missing'>>;
  /**
   * Polls with backoff (1 s, ×1.8) until the target state, the deadline, a vanished volume (when
   * waiting for `attached`) or `giveUp`; returns what it last saw and never throws on timeout. Throws
   * only when EC2 never answered before the deadline.
   */
  waitFor(request: WaitRequest): Promise<WaitResult>;
}
