/**
 * DescribeVolumes and DescribeInstances decoded for what the adapter reads, keeping the SDK client:
 * two middlewares around the SDK's own `deserializerMiddleware`. The inner one, on a 2xx answer,
 * decodes the body as it streams in (describe-shapes.ts) and leaves the SDK an empty body, so its
 * XML parse and schema walk (3.6 s of a 5,000-node sync pass's CPU) have nothing to do; the outer
 * one puts the decoded fields into the command's output. Any other status is untouched: errors
 * (NotFound naming ids, throttling, UnauthorizedOperation, DryRunOperation) are the SDK's to
 * deserialize and classify, exactly as without this; retries and signing are the SDK's too.
 */
import type { EC2Client, ServiceInputTypes, ServiceOutputTypes } from '@aws-sdk/client-ec2';
import type { DeserializeMiddleware, HttpResponse } from '@smithy/types';
import { DESCRIBE_INSTANCES, DESCRIBE_VOLUMES } from './describe-shapes.js';
import { ResponseDecoder, type ResponseShape } from './xml-decode.js';

const SHAPES = new Map<string, ResponseShape>([
  ['DescribeVolumesCommand', DESCRIBE_VOLUMES],
  ['DescribeInstancesCommand', DESCRIBE_INSTANCES],
]);

/** The decoded output of an attempt, by the call's context (one per call, shared by its attempts). */
const decoded = new WeakMap<object, Record<string, unknown>>();

/** Feeds the body to the decoder chunk by chunk: Node's response stream, or bytes/text (tests, other handlers). */
export async function decodeBody(shape: ResponseShape, body: unknown): Promise<Record<string, unknown>> {
  const decoder = new ResponseDecoder(shape);
  if (typeof body === 'string') decoder.write(body);
  else if (body instanceof Uint8Array) decoder.write(new TextDecoder().decode(body));
  else if (body !== undefined && body !== null) {
    const utf8 = new TextDecoder();
    for await (const chunk of body as AsyncIterable<Uint8Array | string>)
      decoder.write(typeof chunk === 'string' ? chunk : utf8.decode(chunk, { stream: true }));
    decoder.write(utf8.decode());
  }
  return decoder.end();
}

const decodeSuccess: DeserializeMiddleware<ServiceInputTypes, ServiceOutputTypes> = (next, context) => async (args) => {
  const result = await next(args);
  const shape = SHAPES.get(context.commandName ?? '');
  const response = result.response as HttpResponse;
  if (shape === undefined || response.statusCode < 200 || response.statusCode >= 300) return result;
  decoded.set(context, await decodeBody(shape, response.body));
  // The SDK's deserializer reads an empty body as an output of $metadata alone.
  response.body = new Uint8Array(0);
  return result;
};

const mergeDecoded: DeserializeMiddleware<ServiceInputTypes, ServiceOutputTypes> = (next, context) => async (args) => {
  const result = await next(args);
  const output = decoded.get(context);
  decoded.delete(context);
  if (output !== undefined) Object.assign(result.output as object, output);
  return result;
};

export function addNarrowDecoding(client: EC2Client): void {
  client.middlewareStack.addRelativeTo(decodeSuccess, {
    name: 'ec2NarrowDecode',
    relation: 'after',
    toMiddleware: 'deserializerMiddleware',
    override: true,
  });
  client.middlewareStack.addRelativeTo(mergeDecoded, {
    name: 'ec2NarrowOutput',
    relation: 'before',
    toMiddleware: 'deserializerMiddleware',
    override: true,
  });
}
