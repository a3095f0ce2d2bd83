/** A controller that records the passes it is asked for (handler tests: parsing, dedupe, failure mapping). */
import { systemClock } from '../../lambda/clock.js';
import { loadConfig } from '../../lambda/config.js';
import type { Controller } from '../../lambda/composition.js';
import type { PassRunner } from '../../lambda/handlers/middleware.js';
import { createTelemetry } from '../../lambda/observability/telemetry.js';
import { type PassReport, type Target, targetKey } from '../../lambda/reconcile/pass/types.js';
import { quietPassReport } from './pass-report.js';

export interface RecordingController extends PassRunner, Pick<Controller, 'watch'> {
  targets: string[];
  fullPasses: number;
  watches: number;
}

export function recordingController(options: { failTargets?: string[] } = {}): RecordingController {
  const report = (kind: PassReport['kind'], target?: Target): PassReport =>
    quietPassReport({ passId: `pass-${kind}`, kind, ...(target ? { target } : {}) });
  const controller: RecordingController = {
    ...createTelemetry(
      loadConfig({ TABLE_NAME: 'volumes', AWS_REGION: 'us-east-1', CLUSTER_NAME: 'test', POWERTOOLS_LOG_LEVEL: 'SILENT' }, 'local'),
    ),
    clock: systemClock,
    targets: [],
    fullPasses: 0,
    watches: 0,
    watch: () => {
      controller.watches++;
      return Promise.resolve({
        watcherId: 'watcher-1',
        joined: true,
        why: 'deadline',
        durationMs: 280_000,
        changes: 12,
        actionable: 3,
        passes: 3,
        failedPasses: 0,
        abandoned: 0,
        relists: 0,
        cacheLists: 0,
        cachedObjects: 0,
        rewatches: 9,
        stalls: 0,
        queueWaitMs: { p50: 0, max: 4 },
      });
    },
    fullPass: () => {
      controller.fullPasses++;
      return Promise.resolve(report('full'));
    },
    targetedPass: (target) => {
      const key = targetKey(target);
      controller.targets.push(key);
      if (options.failTargets?.includes(key)) return Promise.reject(new Error(`store unavailable during ${key}`));
      return Promise.resolve(report('targeted', target));
    },
  };
  return controller;
}
