/**
 * The middy stack every handler shares: Powertools' Lambda context in the logs, metrics flushed
 * in embedded metric format, and middy's early timeout so a pass that overruns its own deadline
 * is cut off cleanly before Lambda kills the invocation (answered by `onTimeout` when the handler
 * can say how far it got). The pass itself stops starting work `SAFETY_MARGIN_MS` before the end
 * (budgetFromContext), well ahead of middy's cut-off.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { Controller } from '../composition.js';
import { budgetFromContext } from '../reconcile/pass/deadline.js';
import type { Budget } from '../reconcile/pass/types.js';
import { InvocationTimeout, timeoutAnswer } from './timeout-answer.js';

/** Time a pass keeps back at the end of the invocation to write down what it started. */
export const SAFETY_MARGIN_MS = 10_000;
/** middy aborts the handler this long before Lambda's own timeout. */
const TIMEOUT_EARLY_MS = 2_000;

/** What a handler needs of the controller: its passes, its telemetry and its clock. */
export type PassRunner = Pick<Controller, 'fullPass' | 'targetedPass' | 'logger' | 'metrics' | 'clock'>;

/** What the middleware itself uses: telemetry and the clock. */
type Instrumented = Pick<Controller, 'logger' | 'metrics' | 'clock'>;

type Handler<E, R> = (event: E, context: Context, budget: Budget) => Promise<R>;

export interface HandlerOptions<E, R> {
  /** The answer when the early timeout cuts the handler off; undefined (or none) fails the invocation. */
  onTimeout?: (event: E) => R | undefined;
}

export function lambdaHandler<E, R>(controller: Instrumented, handler: Handler<E, R>, options: HandlerOptions<E, R> = {}) {
  const { logger, metrics, clock } = controller;
  return (
    middy<E, R>({
      timeoutEarlyInMillis: TIMEOUT_EARLY_MS,
      timeoutEarlyResponse: () => {
        throw new InvocationTimeout();
      },
    })
      // First in, so its onError runs last: metrics are flushed before it answers.
      .use(timeoutAnswer<E, R>({ ...(options.onTimeout ? { answer: options.onTimeout } : {}), log: logger }))
      .use(injectLambdaContext(logger, { resetKeys: true }))
      .use(logMetrics(metrics, { captureColdStartMetric: true }))
      .handler((event, context, { signal }) =>
        // The pass measures its budget on the controller's clock, so the deadline is anchored there too.
        handler(event, context, budgetFromContext(context, clock.now(), { safetyMarginMs: SAFETY_MARGIN_MS, signal })),
      )
  );
}
