/**
 * A Lambda invocation in its own process, so the demo can kill it for real (SIGKILL, as Lambda
 * does at a timeout or an out-of-memory) in the middle of an attach. It builds the controller
 * from the same environment and story clock as the demo and runs the cluster-event handler.
 */
import { loadConfig } from '../../lambda/config.js';
import { createController, sharedTelemetry, useController } from '../../lambda/composition.js';
import { lambdaContext } from './harness/events.js';

interface ChildInput {
  env: Record<string, string>;
  storyNow: number;
  wallNow: number;
  factor: number;
  event: unknown;
}

const input = JSON.parse(process.env.DEMO_CRASH_INPUT ?? '{}') as ChildInput;
Object.assign(process.env, input.env);
const clock = () => Math.floor(input.storyNow + (Date.now() - input.wallNow) * input.factor);
useController(createController(loadConfig(input.env, 'local'), { telemetry: sharedTelemetry(), clock, ec2Wait: { initialDelayMs: 50 } }));
const { handler } = await import('../../lambda/handlers/cluster-event.js');
process.send?.('started');
await handler(input.event, lambdaContext('cluster-event', 5 * 60_000));
process.send?.('finished');
