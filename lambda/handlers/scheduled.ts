/** EventBridge Scheduler (`{ "pass": "full" }`) → one full pass. */
import { z } from 'zod';
import { controller, sharedTelemetry } from '../composition.js';
import { recordRejected } from '../observability/pass-metrics.js';
import { lambdaHandler } from './middleware.js';
import { ScheduledEventSchema } from './schemas.js';

export interface ScheduledResult {
  passId?: string;
  converged: boolean;
  actions: number;
  rejected?: string;
}

export const handler = lambdaHandler<unknown, ScheduledResult>(async (event, _context, budget) => {
  const parsed = ScheduledEventSchema.safeParse(event ?? {});
  if (!parsed.success) {
    const why = z.prettifyError(parsed.error);
    sharedTelemetry().logger.warn('event rejected', { why });
    recordRejected(sharedTelemetry().metrics, 'event');
    return { converged: false, actions: 0, rejected: why };
  }
  const report = await controller().fullPass(budget);
  return { passId: report.passId, converged: report.converged, actions: report.actions.length };
});
