/**
 * What an invocation answers when middy's early timeout cuts its handler off. By default the
 * timeout fails the invocation; a handler that can say how far it got (an SQS batch: which
 * records still need a delivery) answers with that instead, so finished work is not redone.
 */
import type middy from '@middy/core';

/** Thrown by middy's early timeout: Lambda's own timeout is about to end the invocation. */
export class InvocationTimeout extends Error {
  constructor() {
    super('the invocation reached its timeout; unfinished work is left to the next pass');
    this.name = 'InvocationTimeout';
  }
}

export interface TimeoutAnswerOptions<E, R> {
  /** The answer for this event after a timeout; undefined lets the timeout fail the invocation. */
  answer?: (event: E) => R | undefined;
  /** Told which answer replaced the timeout error. */
  log?: { warn(message: string, ...extra: Record<string, unknown>[]): void };
}

export function timeoutAnswer<E, R>(options: TimeoutAnswerOptions<E, R> = {}): middy.MiddlewareObj<E, R> {
  const { answer, log } = options;
  const onError: middy.MiddlewareFn<E, R> = (request) => {
    if (answer === undefined || !(request.error instanceof InvocationTimeout)) return undefined;
    const response = answer(request.event);
    if (response !== undefined) log?.warn('invocation timed out; answering with what it finished', { response });
    return response;
  };
  return { onError };
}
