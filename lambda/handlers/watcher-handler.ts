/**
 * EventBridge Scheduler (`{ "pass": "watch" }`) → one watcher invocation. Most ticks find a live
 * watcher and end at once; one within the last minute of the current watcher's life starts its
 * successor, which watches until its own deadline (middy's early timeout and the pass budget, as
 * for every handler).
 */
import { z } from 'zod';
import type { Controller } from '../composition.js';
import { recordRejected, recordWatcher } from '../observability/pass-metrics.js';
import { lambdaHandler } from './middleware.js';
import { WatchEventSchema } from './schedule-schemas.js';

export interface WatcherResult {
  watcherId?: string;
  /** Whether this invocation watched, or ended at once. */
  watched: boolean;
  /** Why it did not watch, or why it ended. */
  why: string;
  passes: number;
  rejected?: string;
}

export function watcherHandler(controller: Pick<Controller, 'watch' | 'logger' | 'metrics' | 'clock'>) {
  return lambdaHandler<unknown, WatcherResult>(controller, async (event, _context, budget) => {
    const parsed = WatchEventSchema.safeParse(event ?? {});
    if (!parsed.success) {
      const why = z.prettifyError(parsed.error);
      controller.logger.warn('event rejected', { why });
      recordRejected(controller.metrics, 'event');
      return { watched: false, why: 'rejected', passes: 0, rejected: why };
    }
    const report = await controller.watch(budget);
    recordWatcher(controller.metrics, report);
    return { watcherId: report.watcherId, watched: report.joined, why: report.why, passes: report.passes };
  });
}
