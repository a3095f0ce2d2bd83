/**
 * Waiting for an attachment state: DescribeVolumes with backoff (1 s, ×1.8, as DESIGN §4) until the
 * target or the caller's deadline, returning what was last seen rather than throwing at the deadline.
 * The adapter reports what EC2 says; whether an attachment is worth waiting for is the caller's call.
 */
import type { VolumeObservation } from '../../core/types.js';
import type { WaitRequest, WaitResult } from '../../ports/block-storage.js';

export interface WaitOptions {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  initialDelayMs?: number;
  factor?: number;
}

export type ObserveVolume = (volumeId: string) => Promise<VolumeObservation | undefined>;

const attachmentOf = (request: WaitRequest, observation: VolumeObservation | undefined) =>
  observation?.attachments.find((candidate) => candidate.instanceId === request.instanceId && request.leftover?.(candidate) !== true);

function resultFor(request: WaitRequest, observation: VolumeObservation | undefined): WaitResult {
  const attachment = attachmentOf(request, observation);
  if (!attachment) return { state: 'detached', reachedTarget: request.target === 'detached' };
  const result: WaitResult = { state: attachment.state, device: attachment.device, reachedTarget: attachment.state === request.target };
  if (attachment.attachTime !== undefined) result.attachTime = attachment.attachTime;
  return result;
}

/** Waiting cannot help: the volume is gone, or the caller gives up on what EC2 shows. */
function hopeless(request: WaitRequest, observation: VolumeObservation | undefined, now: number): boolean {
  if (request.target === 'attached' && observation?.exists === false) return true;
  const attachment = attachmentOf(request, observation);
  return attachment !== undefined && request.giveUp?.(attachment, now) === true;
}

export async function waitForAttachment(observe: ObserveVolume, request: WaitRequest, options: WaitOptions): Promise<WaitResult> {
  let delay = options.initialDelayMs ?? 1_000;
  let last: WaitResult | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      const observation = await observe(request.volumeId);
      last = resultFor(request, observation);
      if (last.reachedTarget || hopeless(request, observation, options.now())) return last;
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
