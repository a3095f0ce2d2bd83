/**
 * The shape both SQS-fed handlers share: validate each record against the event schema, log and
 * count the invalid ones (never retried, never acted on), run one targeted pass per distinct
 * target, and report the records of failed passes back to SQS for a retry.
 */
import type { SQSBatchResponse } from 'aws-lambda';
import type { z } from 'zod';
import { recordRejected } from '../observability/pass-metrics.js';
import type { Target } from '../reconcile/types.js';
import { lambdaHandler, type PassRunner } from './middleware.js';
import { Ec2StateChangeSchema, KubernetesEventSchema } from './schemas.js';
import { parseSqsBatch, runTargets } from './sqs-batch.js';
import { targetOfEc2Event, targetOfKubernetesEvent } from './targets-of.js';

function sqsTargetHandler<S extends z.ZodType>(controller: PassRunner, schema: S, toTarget: (event: z.infer<S>) => Target | undefined) {
  return lambdaHandler<unknown, SQSBatchResponse>(controller, async (event, _context, budget) => {
    const batch = parseSqsBatch(event, schema);
    for (const rejected of batch.rejected) controller.logger.warn('event rejected', { messageId: rejected.messageId, why: rejected.why });
    if (batch.rejected.length > 0) recordRejected(controller.metrics, 'event', batch.rejected.length);
    return runTargets(batch.accepted, toTarget, async (target) => {
      try {
        await controller.targetedPass(target, budget);
        return { ok: true };
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    });
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
