/**
 * The one place EC2 error codes are read. Every failure becomes a `reason`; attach and detach map
 * reasons to the port's outcomes, so the core never sees an AWS error code.
 * Codes: EC2 API Reference "Error codes"; idempotency rules as in aws-ebs-csi-driver's cloud.go.
 */
import { isThrottlingError, isTransientError } from '@smithy/core/retry';
import type { AttachOutcome, DetachOutcome } from '../../ports/block-storage.js';

export type Ec2ErrorReason =
  | 'throttled'
  | 'transient'
  /** `VolumeInUse`: attached elsewhere, or (EC2 does not say) already attached here. */
  | 'volume-in-use'
  | 'volume-not-found'
  | 'instance-not-found'
  /** `IncorrectState`: e.g. DetachVolume on an `available` volume. */
  | 'incorrect-state'
  | 'attachment-not-found'
  | 'attachment-limit'
  /** `InvalidParameterValue` "… Attachment point /dev/xvdaa is already in use". */
  | 'device-in-use'
  | 'incorrect-instance-state'
  /** `UnauthorizedOperation` (IAM), `CustomerKeyHasBeenRevoked` (no grant on the volume's KMS key). */
  | 'unauthorized'
  | 'final';

export interface ClassifiedError {
  reason: Ec2ErrorReason;
  code: string;
  message: string;
}

const BY_CODE: Record<string, Ec2ErrorReason> = {
  VolumeInUse: 'volume-in-use',
  'InvalidVolume.NotFound': 'volume-not-found',
  'InvalidInstanceID.NotFound': 'instance-not-found',
  IncorrectState: 'incorrect-state',
  'InvalidAttachment.NotFound': 'attachment-not-found',
  AttachmentLimitExceeded: 'attachment-limit',
  IncorrectInstanceState: 'incorrect-instance-state',
  UnauthorizedOperation: 'unauthorized',
  CustomerKeyHasBeenRevoked: 'unauthorized',
};

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  $metadata?: { httpStatusCode?: number };
}

function codeOf(error: ErrorLike): string {
  if (typeof error.name === 'string' && error.name !== 'Error') return error.name;
  if (typeof error.code === 'string') return error.code;
  return 'Unknown';
}

export function classifyEc2Error(error: unknown): ClassifiedError {
  const like: ErrorLike = typeof error === 'object' && error !== null ? error : { message: String(error) };
  const code = codeOf(like);
  const message = typeof like.message === 'string' ? like.message : String(error);
  const reason = reasonFor(like, code, message);
  return { reason, code, message };
}

function reasonFor(error: ErrorLike, code: string, message: string): Ec2ErrorReason {
  const known = BY_CODE[code];
  if (known) return known;
  if (code === 'InvalidParameterValue' && /already in use/i.test(message)) return 'device-in-use';
  // Smithy's own classifiers: throttling codes (RequestLimitExceeded, …), then 5xx, timeouts and socket errors.
  const sdkError = error as Parameters<typeof isThrottlingError>[0];
  if (isThrottlingError(sdkError)) return 'throttled';
  if (isTransientError(sdkError) || (error.$metadata?.httpStatusCode ?? 0) >= 500) return 'transient';
  return 'final';
}

/** Ids of `prefix` (`vol-`, `i-`) named in a NotFound message: "The volumes 'vol-a, vol-b' do not exist." */
export function idsInMessage(message: string, prefix: 'vol-' | 'i-'): string[] {
  const pattern = new RegExp(`\\b${prefix}[0-9a-f]+\\b`, 'g');
  return [...new Set(message.match(pattern) ?? [])];
}

/** Outcomes every call shares; undefined when the reason needs the caller's own mapping. */
function common(error: ClassifiedError): Extract<AttachOutcome, { kind: 'throttled' | 'transient' | 'unauthorized' }> | undefined {
  if (error.reason === 'throttled' || error.reason === 'transient') return { kind: error.reason, message: error.message };
  if (error.reason === 'unauthorized') return { kind: 'unauthorized', code: error.code, message: error.message };
  return undefined;
}

/** AttachVolume's error → outcome. `volume-in-use` needs a DescribeVolumes to tell here from elsewhere (attach.ts). */
export function attachOutcomeOf(error: ClassifiedError, device: string): AttachOutcome {
  const shared = common(error);
  if (shared) return shared;
  switch (error.reason) {
    case 'volume-not-found':
      return { kind: 'volume-gone', message: error.message };
    case 'instance-not-found':
      return { kind: 'instance-gone', message: error.message };
    case 'attachment-limit':
      return { kind: 'limit-reached', message: error.message };
    case 'device-in-use':
      return { kind: 'device-in-use', device, message: error.message };
    case 'volume-in-use':
      return { kind: 'attached-elsewhere', instanceIds: [], message: error.message };
    default:
      return { kind: 'failed', code: error.code, message: error.message };
  }
}

/**
 * DetachVolume's error → outcome. Nothing to detach: `IncorrectState` (volume `available`),
 * `InvalidAttachment.NotFound` (not attached to that instance), `InvalidVolume.NotFound` (deleted),
 * and `InvalidInstanceID.NotFound` (the instance is long gone, so nothing is attached to it).
 */
export function detachOutcomeOf(error: ClassifiedError): DetachOutcome {
  const shared = common(error);
  if (shared) return shared;
  switch (error.reason) {
    case 'incorrect-state':
    case 'attachment-not-found':
    case 'volume-not-found':
    case 'instance-not-found':
      return { kind: 'already-detached' };
    default:
      return { kind: 'failed', code: error.code, message: error.message };
  }
}
