/**
 * The shape both SQS-fed handlers share: validate each record against the event schema, log and
 * count the invalid ones (never retried, never acted on), run one targeted pass per distinct
 * target while time is left, and report the records of failed or unfinished passes back to SQS
 * for a retry, also when the invocation runs out of time.
 */
import type { SQSBatchResponse } from 'aws-lambda';
import type { z } from 'zod';
import { recordRejected } from '../observability/pass-metrics.js';
import { Deadline } from '../reconcile/pass/deadline.js';
import type { Budget, Target } from '../reconcile/pass/types.js';
import { lambdaHandler, type PassRunner } from './middleware.js';
import { Ec2StateChangeSchema, KubernetesEventSchema } from './event-schemas.js';
import { BatchProgress, parseSqsBatch, runTargets } from './sqs-batch.js';

/** A targeted pass is worth starting only with this much of the budget left (reads, one EC2 step, the writes). */
const MIN_PASS_MS = 5_000;
import { targetOfEc2Event, targetOfKubernetesEvent } from './targets-of.js';

function sqsTargetHandler<S extends z.ZodType>(controller: PassRunner, schema: S, toTarget: (event: z.infer<S>) => Target | undefined) {
  // One invocation per event object: the timeout answer finds the batch's progress by it.
  const inFlight = new WeakMap<object, BatchProgress>();
  const handle = async (event: unknown, budget: Budget): Promise<SQSBatchResponse> => {
    const progress = new BatchProgress();
    if (typeof event === 'object' && event !== null) inFlight.set(event, progress);
    const batch = parseSqsBatch(event, schema);
    for (const rejected of batch.rejected) controller.logger.warn('event rejected', { messageId: rejected.messageId, why: rejected.why });
    if (batch.rejected.length > 0) recordRejected(controller.metrics, 'event', batch.rejected.length);
    const deadline = new Deadline(budget, () => controller.clock.now(), 0);
    const run = async (target: Target) => {
      try {
        await controller.targetedPass(target, budget);
        return { ok: true } as const;
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) } as const;
      }
    };
    return runTargets(batch.accepted, toTarget, run, { progress, hasTime: () => deadline.canStart(MIN_PASS_MS) });
  };
  return lambdaHandler<unknown, SQSBatchResponse>(controller, (event, _context, budget) => handle(event, budget), {
    onTimeout: (event) => (typeof event === 'object' && event !== null ? inFlight.get(event)?.response() : undefined),
  });
}

/** Kubernetes events (kubernetes-event-exporter → EventBridge → SQS) → targeted passes per pod or node. */
export function clusterEventHandler(controller: PassRunner) {
  return sqsTargetHandler(controller, KubernetesEventSchema, targetOfKubernetesEvent);
}

/** EC2 instance state changes (EventBridge → SQS) → a targeted pass for the instance's node(s). */
export function ec2EventHandler(controller: PassRunner) {
  return sqsTargetHandler(controller, Ec2StateChangeSchema, targetOfEc2Event);
}
