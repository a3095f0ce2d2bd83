/**
 * The shape both SQS-fed handlers share: validate each record against the event schema, log and
 * count the invalid ones (never retried, never acted on), run one targeted pass per distinct
 * target, and report the records of failed passes back to SQS for a retry.
 */
import type { SQSBatchResponse } from 'aws-lambda';
import type { z } from 'zod';
import { controller, sharedTelemetry } from '../composition.js';
import { recordRejected } from '../observability/pass-metrics.js';
import type { Target } from '../reconcile/types.js';
import { lambdaHandler } from './middleware.js';
import { parseSqsBatch, runTargets } from './sqs-batch.js';

export function sqsTargetHandler<S extends z.ZodType>(schema: S, toTarget: (event: z.infer<S>) => Target | undefined) {
  return lambdaHandler<unknown, SQSBatchResponse>(async (event, _context, budget) => {
    const { logger, metrics } = sharedTelemetry();
    const batch = parseSqsBatch(event, schema);
    for (const rejected of batch.rejected) logger.warn('event rejected', { messageId: rejected.messageId, why: rejected.why });
    if (batch.rejected.length > 0) recordRejected(metrics, 'event', batch.rejected.length);
    return runTargets(batch.accepted, toTarget, async (target) => {
      try {
        await controller().targetedPass(target, budget);
        return { ok: true };
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    });
  });
}
