/** EventBridge Scheduler (`{ "pass": "full" }`) → one full pass. */
import { z } from 'zod';
import { recordRejected } from '../observability/pass-metrics.js';
import { lambdaHandler, type PassRunner } from './middleware.js';
import { ScheduledEventSchema } from './schedule-schemas.js';

export interface ScheduledResult {
  passId?: string;
  converged: boolean;
  actions: number;
  rejected?: string;
  /** LEASE_FENCE: why this pass only planned (another holder's Lease is live). */
  fenced?: string;
  /** Why this pass only planned: a handback turned writes off in the store. */
  writesOff?: string;
}

export function scheduledHandler(controller: PassRunner) {
  return lambdaHandler<unknown, ScheduledResult>(controller, async (event, _context, budget) => {
    const parsed = ScheduledEventSchema.safeParse(event ?? {});
    if (!parsed.success) {
      const why = z.prettifyError(parsed.error);
      controller.logger.warn('event rejected', { why });
      recordRejected(controller.metrics, 'event');
      return { converged: false, actions: 0, rejected: why };
    }
    const report = await controller.fullPass(budget);
    const fenced = report.fenced === undefined ? {} : { fenced: report.fenced };
    const writesOff = report.writesOff === undefined ? {} : { writesOff: report.writesOff };
    return { passId: report.passId, converged: report.converged, actions: report.actions.length, ...fenced, ...writesOff };
  });
}
