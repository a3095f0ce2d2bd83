/**
 * CPU per 500-item page of DescribeVolumes and DescribeInstances: the SDK's own deserializer against
 * the adapter's narrow decoding (lambda/adapters/ec2/narrow-decode.ts), on answers recorded from the
 * local EC2 for a generated cluster (bench-sized tags and attachments), replayed to an SDK client
 * without a network; then a 5,000-node sync pass's DescribeVolumes (every data volume, 500 ids a
 * call, through Ec2Reader over HTTP) from a local EC2 in a process of its own, this process's CPU
 * with and without the narrow decoding. `npx tsx bench/decode-ec2.ts [iterations]`.
 */
import {
  DescribeInstancesCommand,
  DescribeVolumesCommand,
  EC2Client,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/client-ec2';
import type { DeserializeMiddleware } from '@smithy/types';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createEc2Client } from '../lambda/adapters/ec2/client.js';
import { Ec2Reader } from '../lambda/adapters/ec2/describe.js';
import { addNarrowDecoding } from '../lambda/adapters/ec2/narrow-decode.js';
import { withoutSdkLogger } from '../lambda/adapters/sdk-logger.js';
import { startLocalEc2 } from '../sandbox/ec2/server.js';
import { generateCluster } from '../sandbox/generate/cluster.js';
import { seedEc2 } from '../sandbox/generate/seed.js';

const PAGE = 500;
const CREDENTIALS = { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local-secret' };
type Describe = () => DescribeVolumesCommand | DescribeInstancesCommand;

/** One answer of the local EC2, as the bytes it sent. */
async function record(describe: Describe): Promise<Uint8Array> {
  const ec2 = await startLocalEc2({ throttle: false });
  try {
    seedEc2(ec2.world, generateCluster({ seed: PAGE, nodes: PAGE, volumesPerNode: 4, podsPerNode: 10 }), 'bench');
    const client = new EC2Client({ region: 'us-east-1', endpoint: ec2.endpoint, credentials: CREDENTIALS });
    let bytes = new Uint8Array(0);
    const keep: DeserializeMiddleware<ServiceInputTypes, ServiceOutputTypes> = (next) => async (args) => {
      const result = await next(args);
      const body = result.response as { body: AsyncIterable<Uint8Array> | Uint8Array };
      const chunks: Uint8Array[] = [];
      for await (const chunk of body.body as AsyncIterable<Uint8Array>) chunks.push(chunk);
      bytes = Buffer.concat(chunks);
      body.body = bytes;
      return result;
    };
    client.middlewareStack.addRelativeTo(keep, { name: 'keepBody', relation: 'after', toMiddleware: 'deserializerMiddleware' });
    await client.send(describe());
    return bytes;
  } finally {
    await ec2.stop();
  }
}

function replaying(bytes: Uint8Array, narrow: boolean): EC2Client {
  const client = new EC2Client({
    region: 'us-east-1',
    credentials: CREDENTIALS,
    requestHandler: {
      handle: () => Promise.resolve({ response: { statusCode: 200, headers: {}, body: bytes.slice() } }),
    },
  });
  if (narrow) addNarrowDecoding(client);
  // As createEc2Client builds it: without the SDK's logger middleware and its deep copy of the output.
  return withoutSdkLogger(client);
}

/** Median CPU milliseconds of one call, over `iterations` after a warm-up. */
async function cpuPerCall(client: EC2Client, describe: Describe, iterations: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < iterations + 5; i++) {
    const before = process.cpuUsage();
    await client.send(describe());
    const used = process.cpuUsage(before);
    if (i >= 5) samples.push((used.user + used.system) / 1000);
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)] as number;
}

const iterations = Number(process.argv[2] ?? 30);
const cases: [string, Describe][] = [
  ['DescribeVolumes', () => new DescribeVolumesCommand({ MaxResults: PAGE })],
  ['DescribeInstances', () => new DescribeInstancesCommand({ MaxResults: PAGE })],
];
for (const [name, describe] of cases) {
  const bytes = await record(describe);
  const sdk = await cpuPerCall(replaying(bytes, false), describe, iterations);
  const narrow = await cpuPerCall(replaying(bytes, true), describe, iterations);
  const kb = Math.round(bytes.byteLength / 1024);
  console.log(
    `${name}, ${PAGE} items (${kb} KiB): SDK ${sdk.toFixed(1)} ms CPU, narrow ${narrow.toFixed(1)} ms CPU (median of ${iterations})`,
  );
}

/** Median CPU of describing every volume (of 3, once warm), with the production client or (`sdk`) without its narrow decoding. */
async function describeAll(endpoint: string, volumeIds: string[], sdk: boolean): Promise<number> {
  const client = createEc2Client({ region: 'us-east-1', endpoint, credentials: CREDENTIALS });
  if (sdk) for (const name of ['ec2NarrowDecode', 'ec2NarrowOutput']) client.middlewareStack.remove(name);
  const reader = new Ec2Reader(client);
  const samples: number[] = [];
  for (let run = 0; run < 4; run++) {
    const before = process.cpuUsage();
    const seen = await reader.describeVolumes(volumeIds);
    const used = process.cpuUsage(before);
    if ([...seen.values()].some((v) => !v.exists)) throw new Error('a seeded volume came back missing');
    if (run > 0) samples.push((used.user + used.system) / 1000);
  }
  client.destroy();
  return samples.sort((a, b) => a - b)[1] as number;
}

const child = fork(fileURLToPath(new URL('./local-ec2-child.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx'] });
const { endpoint, volumeIds } = await new Promise<{ endpoint: string; volumeIds: string[] }>((resolve) => child.once('message', resolve));
const sdk = await describeAll(endpoint, volumeIds, true);
const narrow = await describeAll(endpoint, volumeIds, false);
console.log(
  `DescribeVolumes of ${volumeIds.length} volumes (5,000 nodes) over HTTP: SDK ${sdk.toFixed(0)} ms CPU, narrow ${narrow.toFixed(0)} ms CPU (median of 3)`,
);
child.disconnect();
