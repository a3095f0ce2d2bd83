/**
 * A local DynamoDB on its own (dynalite, in memory): `npm run sandbox:dynamodb -- --port 8000`.
 * Point the controller at it with AWS_ENDPOINT_URL_DYNAMODB, then `ebs-attach-detach init` creates
 * the state table. Stops on Ctrl-C; its data goes with it.
 */
import { parseArgs } from 'node:util';
import { startLocalDynamo } from './dynamodb.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8000' },
    host: { type: 'string', default: '127.0.0.1' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log('usage: npm run sandbox:dynamodb -- [--port 8000] [--host 127.0.0.1]');
  process.exit(0);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0) throw new Error(`--port must be a port number, got '${values.port}'`);

const dynamo = await startLocalDynamo({ port, host: values.host });
console.log(`local DynamoDB listening on ${dynamo.endpoint}`);
console.log(`use:        export AWS_ENDPOINT_URL_DYNAMODB=${dynamo.endpoint}`);
console.log('then:       npx ebs-attach-detach init');
const shutdown = () => void dynamo.stop().then(() => process.exit(0));
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
