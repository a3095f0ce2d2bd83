/**
 * Run the local EC2 on its own: `npm run sandbox:ec2 -- --port 4566 [--accelerate 10] [--no-throttle]`.
 * Then point any EC2 client at it, e.g. `aws ec2 describe-volumes --endpoint-url http://127.0.0.1:4566`
 * or `AWS_ENDPOINT_URL_EC2=http://127.0.0.1:4566` for the SDK.
 */
import { parseArgs } from 'node:util';
import { RunningClock } from '../clock.js';
import { startLocalEc2 } from './server.js';

const USAGE = 'usage: npm run sandbox:ec2 -- [--port N] [--host ADDR] [--accelerate FACTOR] [--no-throttle]';

function number(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`--${name} must be a non-negative number, got '${value}'\n${USAGE}`);
  return parsed;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      accelerate: { type: 'string' },
      'no-throttle': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return console.log(USAGE);
  const factor = number(values.accelerate, 'accelerate', 1);
  const ec2 = await startLocalEc2({
    port: number(values.port, 'port', 0),
    host: values.host ?? '127.0.0.1',
    clock: new RunningClock(factor),
    ...(values['no-throttle'] ? { throttle: false as const } : {}),
  });
  console.log(`local EC2 listening on ${ec2.endpoint} (control API under ${ec2.endpoint}/_control/)`);
  const shutdown = () => void ec2.stop().then(() => process.exit(0));
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
