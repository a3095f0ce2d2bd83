/**
 * DescribeVolumes and DescribeInstances decoded for what the adapter reads, keeping the SDK client
 * (own-decoding.ts): a 2xx body is decoded as it streams in (describe-shapes.ts), so the SDK's XML
 * parse and schema walk (3.6 s of a 5,000-node sync pass's CPU) have nothing to do. Any other
 * status is untouched: errors (NotFound naming ids, throttling, UnauthorizedOperation,
 * DryRunOperation) are the SDK's to deserialize and classify, exactly as without this.
 */
import type { EC2Client } from '@aws-sdk/client-ec2';
import { bodyChunks, decodeOwnSuccess, type BodyDecoder } from './own-decoding.js';
import { DESCRIBE_INSTANCES, DESCRIBE_VOLUMES } from './describe-shapes.js';
import { ResponseDecoder, type ResponseShape } from './xml-decode.js';

export async function decodeBody(shape: ResponseShape, body: unknown): Promise<Record<string, unknown>> {
  const decoder = new ResponseDecoder(shape);
  for await (const chunk of bodyChunks(body)) decoder.write(chunk);
  return decoder.end();
}

const DECODERS = new Map<string, BodyDecoder>([
  ['DescribeVolumesCommand', (body) => decodeBody(DESCRIBE_VOLUMES, body)],
  ['DescribeInstancesCommand', (body) => decodeBody(DESCRIBE_INSTANCES, body)],
]);

export function addNarrowDecoding(client: EC2Client): void {
  decodeOwnSuccess(client.middlewareStack, 'ec2Narrow', (commandName) => DECODERS.get(commandName));
}
