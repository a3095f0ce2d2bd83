/**
 * Waiting for an attachment state: DescribeVolumes with backoff (1 s, ×1.8, as DESIGN §4) until the
 * target or the caller's deadline, returning what was last seen rather than throwing at the deadline.
 */
import type { Ec2Attachment, VolumeObservation } from '../../core/types.js';
import type { WaitRequest, WaitResult } from '../../ports/block-storage.js';

/** An attach still `attaching` after this long will not finish: detach and retry from scratch. */
export const STUCK_ATTACH_MS = 90_000;

export interface WaitOptions {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  initialDelayMs?: number;
  factor?: number;
  stuckAfterMs?: number;
}

export type ObserveVolume = (volumeId: string) => Promise<VolumeObservation | undefined>;

/** True when `attachment` has been `attaching` longer than `thresholdMs` (per EC2's AttachTime). */
export function isStuck(attachment: Pick<Ec2Attachment, 'state' | 'attachTime'>, now: number, thresholdMs = STUCK_ATTACH_MS): boolean {
  return attachment.state === 'attaching' && attachment.attachTime !== undefined && now - attachment.attachTime > thresholdMs;
}

function resultFor(request: WaitRequest, observation: VolumeObservation | undefined, now: number, stuckAfterMs: number): WaitResult {
  const attachment = observation?.attachments.find((candidate) => candidate.instanceId === request.instanceId);
  if (!attachment) return { state: 'detached', reachedTarget: request.target === 'detached' };
  const result: WaitResult = { state: attachment.state, device: attachment.device, reachedTarget: attachment.state === request.target };
  if (attachment.attachTime !== undefined) result.attachTime = attachment.attachTime;
  if (isStuck(attachment, now, stuckAfterMs)) result.stuck = true;
  return result;
}

/** Waiting cannot help: the volume is gone, or the attach is stuck. */
function hopeless(request: WaitRequest, observation: VolumeObservation | undefined, result: WaitResult): boolean {
  return (request.target === 'attached' && observation?.exists === false) || result.stuck === true;
}

export async function waitForAttachment(observe: ObserveVolume, request: WaitRequest, options: WaitOptions): Promise<WaitResult> {
  const stuckAfterMs = options.stuckAfterMs ?? STUCK_ATTACH_MS;
  let delay = options.initialDelayMs ?? 1_000;
  let last: WaitResult | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      const observation = await observe(request.volumeId);
      last = resultFor(request, observation, options.now(), stuckAfterMs);
      if (last.reachedTarget || hopeless(request, observation, last)) return last;
    } catch (error) {
      // A failed poll is not an answer; keep the last one and try again until the deadline.
      lastError = error;
    }
    const remaining = request.deadline - options.now();
    if (remaining <= 0) {
      if (last) return last;
      throw lastError instanceof Error ? lastError : new Error(`waiting for ${request.volumeId}: no answer from EC2 before the deadline`);
    }
    await options.sleep(Math.min(delay, remaining));
    delay *= options.factor ?? 1.8;
  }
}
