/**
 * An SQS queue that buffers EventBridge events for one event function, with its dead-letter
 * queue. Events are hints (the scheduled full pass is the safety net), so they are kept briefly;
 * what could not be handled is kept two weeks in the DLQ for inspection.
 */
import { Duration } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ControllerFunction } from './controller-function.js';

/**
 * Records per invocation and how long to gather them. A batch dedupes its targets, so a burst of
 * events costs one pass per target; the window is the delay our queueing adds to an event. 1 s is
 * the least SQS allows for batches above 10 records (a 0 s window would cap batches at 10).
 */
const EVENT_BATCH_SIZE = 100;
export const EVENT_BATCHING_WINDOW = Duration.seconds(1);
/** Deliveries before a record moves to the DLQ (AWS recommends at least 5 with partial batch failures). */
const MAX_RECEIVE_COUNT = 5;

/** Encrypted at rest with SQS-managed keys (EventBridge can deliver to them) and TLS-only access. */
export function secureQueue(scope: Construct, id: string, props: sqs.QueueProps = {}): sqs.Queue {
  return new sqs.Queue(scope, id, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    ...props,
  });
}

export interface EventQueueProps {
  /** Timeout of the function that consumes the queue; the visibility timeout is derived from it. */
  consumerTimeout: Duration;
}

export class EventQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: EventQueueProps) {
    super(scope, id);
    this.deadLetterQueue = secureQueue(this, 'DeadLetterQueue', { retentionPeriod: Duration.days(14) });
    this.queue = secureQueue(this, 'Queue', {
      retentionPeriod: Duration.days(1),
      // Lambda's guidance: at least six times the function timeout, plus the batching window.
      visibilityTimeout: Duration.seconds(props.consumerTimeout.toSeconds() * 6 + EVENT_BATCHING_WINDOW.toSeconds()),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
  }

  /** The rule target; events EventBridge cannot deliver land in the same DLQ. */
  asRuleTarget(): events.IRuleTarget {
    return new targets.SqsQueue(this.queue, {
      deadLetterQueue: this.deadLetterQueue,
      retryAttempts: 8,
      maxEventAge: Duration.hours(1),
    });
  }

  /** Feeds the queue to `fn` in batches; records the handler reports as failed are retried alone. */
  bindTo(fn: ControllerFunction, maxConcurrency: number): void {
    fn.function.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: EVENT_BATCH_SIZE,
        maxBatchingWindow: EVENT_BATCHING_WINDOW,
        reportBatchItemFailures: true,
        // At most the reserved concurrency, so the pollers never get throttled into the DLQ.
        maxConcurrency,
      }),
    );
  }
}
