/** Invoking the real handlers in tests: a Lambda context and a controller wired to a world. */
import type { Context } from 'aws-lambda';
import { createController, sharedTelemetry, useController, type Controller, type ControllerOverrides } from '../../lambda/composition.js';
import { loadConfig } from '../../lambda/config.js';
import type { World } from '../../sandbox/world.js';

export function lambdaContext(remainingMs = 60_000): Context {
  const endsAt = Date.now() + remainingMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'ebs-attach-detach-test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:ebs-attach-detach-test',
    memoryLimitInMB: '512',
    awsRequestId: crypto.randomUUID(),
    logGroupName: '/aws/lambda/ebs-attach-detach-test',
    logStreamName: 'test',
    getRemainingTimeInMillis: () => endsAt - Date.now(),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * Points the environment (SDK endpoints included) at the world and makes the handlers use a
 * controller built from it, with EC2 polling fast enough for the sandbox's short delays.
 */
export function wireHandlers(world: World, extraEnv: Record<string, string> = {}, overrides: ControllerOverrides = {}): Controller {
  Object.assign(process.env, world.env({ POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'ERROR', ...extraEnv }));
  const controller = createController(loadConfig(process.env, 'local'), {
    telemetry: sharedTelemetry(), ec2Wait: { initialDelayMs: 25, factor: 1.5 }, waits: { maxAttachWaitMs: 5_000, maxDetachWaitMs: 5_000, reserveMs: 500 },
    ...overrides,
  });
  useController(controller);
  return controller;
}

/** An SQS batch of EventBridge events, as Lambda's event source mapping delivers it. */
export function sqsBatch(bodies: unknown[]): { Records: object[] } {
  return {
    Records: bodies.map((body, i) => ({
      messageId: `m-${i + 1}`,
      receiptHandle: `rh-${i + 1}`,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      attributes: { ApproximateReceiveCount: '1', ApproximateFirstReceiveTimestamp: '1700000000000', SenderId: 'AIDA', SentTimestamp: '1700000000000' },
      messageAttributes: {},
      md5OfBody: '0',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:events',
      awsRegion: 'us-east-1',
    })),
  };
}
