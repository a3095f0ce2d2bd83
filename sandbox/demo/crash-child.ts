/**
 * A Lambda invocation in its own process, so the demo can kill it for real (SIGKILL, as Lambda
 * does at a timeout or an out-of-memory) in the middle of an attach. It builds the controller
 * through the real composition root from the stack's environment, on the story's clock, and runs
 * the cluster-event handler.
 */
import { createController } from '../../lambda/composition.js';
import { loadConfig } from '../../lambda/config.js';
import { clusterEventHandler } from '../../lambda/handlers/sqs-handler.js';
import { RunningClock } from '../clock.js';
import { lambdaContext } from '../events.js';

interface ChildInput {
  env: Record<string, string>;
  storyNow: number;
  wallNow: number;
  factor: number;
  event: unknown;
}

process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
const input = JSON.parse(process.env.DEMO_CRASH_INPUT ?? '{}') as ChildInput;
const clock = new RunningClock(input.factor, input.storyNow + (Date.now() - input.wallNow) * input.factor);
const handler = clusterEventHandler(createController(loadConfig(input.env, 'local'), { clock, ec2Wait: { initialDelayMs: 50 } }));
process.send?.('started');
await handler(input.event, lambdaContext(5 * 60_000, 'cluster-event'));
process.send?.('finished');
