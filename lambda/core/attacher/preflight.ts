/**
 * The shadow's preflight (issue 28): before a takeover, each VolumeAttachment's next call is asked
 * of EC2 with DryRun, so that IAM judges our role on the real volume and instance (tag conditions
 * on both) before the sidecar stops. The next call: DetachVolume where EC2 shows the volume on the
 * VA's instance (attached, or a deleting VA still held), AttachVolume for a live VA it is not on.
 * A deleting VA EC2 no longer holds needs no call. A dry run does not evaluate the KMS grant EC2
 * creates at attach time (DryRun checks the action's permissions only), so the key of an encrypted
 * volume is checked here against the keys our role may grant on (KMS_KEY_ARNS).
 */
import type { InstanceId, VolumeId, VolumeObservation } from '../types.js';
import type { VaTarget } from './targets.js';

export type PreflightCall =
  | { action: 'attach'; volumeId: VolumeId; instanceId: InstanceId }
  | { action: 'detach'; volumeId: VolumeId; instanceId: InstanceId; device?: string };

/** EC2's answer to one dry run, as the port gives it (`message`: EC2's words when denied or unanswered). */
export interface PreflightSeen {
  kind: 'allowed' | 'denied' | 'unanswered';
  call: string;
  message?: string;
}

/** The call a takeover would make next on this VA, or undefined when there is none (or no way to name it). */
export function nextCall(target: VaTarget, observation: VolumeObservation | undefined): PreflightCall | undefined {
  const { volumeId, instanceId } = target;
  if (target.error !== undefined || volumeId === undefined || instanceId === undefined || observation?.exists !== true) return undefined;
  const here = observation.attachments.find((a) => a.instanceId === instanceId && a.state !== 'detached');
  if (here !== undefined) return { action: 'detach', volumeId, instanceId, ...(here.device === undefined ? {} : { device: here.device }) };
  return target.deleting ? undefined : { action: 'attach', volumeId, instanceId };
}

/** The shadow's verdict for an answer that is not a yes, with the reason from EC2's answer. */
export function preflightVerdict(
  seen: PreflightSeen | undefined,
): { verdict: 'would-be-denied' | 'preflight-unanswered'; detail: string } | undefined {
  if (seen === undefined || seen.kind === 'allowed') return undefined;
  if (seen.kind === 'denied') return { verdict: 'would-be-denied', detail: `${seen.call}: ${seen.message ?? 'UnauthorizedOperation'}` };
  return { verdict: 'preflight-unanswered', detail: `${seen.call}: ${seen.message ?? 'no answer'}` };
}

/**
 * An attach of an encrypted volume needs EC2's grant on its key, which our role may create only on
 * the keys it lists (the stack's kmsKeyArns). EC2 names every key by its key ARN, the account's
 * AWS-managed aws/ebs key too (DescribeVolumes `KmsKeyId`), so that key is not recognisable here:
 * it is named like any other, and listing it clears it (its attach would need no grant).
 */
export function keyVerdict(
  call: PreflightCall | undefined,
  observation: VolumeObservation | undefined,
  grantable: ReadonlySet<string>,
): { verdict: 'kms-key-unlisted'; detail: string } | undefined {
  if (call?.action !== 'attach' || observation?.encrypted !== true) return undefined;
  const key = observation.kmsKeyId;
  if (key !== undefined && grantable.has(key)) return undefined;
  return {
    verdict: 'kms-key-unlisted',
    detail:
      `AttachVolume ${call.volumeId} to ${call.instanceId}: the volume is encrypted under KMS key ${key ?? '(EC2 named none)'}, ` +
      'which KMS_KEY_ARNS does not list, so our role may not create the grant EC2 needs to attach it (CustomerKeyHasBeenRevoked): ' +
      'add the key to kmsKeyArns and redeploy (export the same KMS_KEY_ARNS for the CLI), ' +
      "unless this is the account's aws/ebs key: find it with `aws kms describe-key --key-id alias/aws/ebs`, and list it in kmsKeyArns to clear this",
  };
}
