/**
 * DescribeVolumes/DescribeInstances decoded for what the adapter reads (narrow-decode.ts), checked
 * against the SDK's own deserializer on the same bytes: responses recorded from the local EC2 and
 * odd ones in EC2's documented shape (pretty-printed, entities, CDATA, unknown and empty elements).
 * Where the SDK's parser falls short (characters outside the BMP, namespace prefixes) the narrow
 * decoding is checked on its own. Errors stay the SDK's: they classify exactly as without it.
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { DescribeInstancesCommand, DescribeVolumesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { DESCRIBE_INSTANCES, DESCRIBE_VOLUMES } from '../../lambda/adapters/ec2/describe-shapes.js';
import { classifyEc2Error } from '../../lambda/adapters/ec2/errors.js';
import { addNarrowDecoding, decodeBody } from '../../lambda/adapters/ec2/narrow-decode.js';
import type { Fields } from '../../lambda/adapters/ec2/xml-decode.js';
import { createEc2Client } from '../../lambda/adapters/ec2/client.js';
import { ODD_INSTANCES, ODD_VOLUMES, PREFIXED_VOLUMES } from './narrow-decode-fixtures.js';

const recorded = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

/** A client whose every request is answered with `body` (bytes, as Node's handler would hand them over). */
function answering(statusCode: number, body: string, narrow: boolean): EC2Client {
  const client = new EC2Client({
    region: 'us-east-1',
    maxAttempts: 1,
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    requestHandler: {
      handle: () => Promise.resolve({ response: { statusCode, headers: {}, body: new TextEncoder().encode(body) } }),
    },
  });
  if (narrow) addNarrowDecoding(client);
  return client;
}

/** The SDK's output cut down to the fields a shape decodes, so the two can be compared whole. */
function project(value: unknown, fields: Fields): unknown {
  const source = value as Record<string, unknown>;
  const result: Record<string, unknown> = {};
  for (const shape of fields.values()) {
    const member = source[shape.key];
    if (member === undefined) continue;
    if (shape.kind === 'leaf') result[shape.key] = member;
    else if (shape.kind === 'struct') result[shape.key] = project(member, shape.fields);
    else result[shape.key] = (member as unknown[]).map((item) => project(item, shape.item));
  }
  return result;
}

async function both(command: () => DescribeVolumesCommand | DescribeInstancesCommand, body: string) {
  const sdk = await answering(200, body, false).send(command());
  const narrow = await answering(200, body, true).send(command());
  return { sdk, narrow };
}

const without$metadata = ({ $metadata: _, ...rest }: { $metadata: unknown }) => rest;

describe('DescribeVolumes decoded narrowly', () => {
  it.each([
    ['recorded from the local EC2', recorded('describe-volumes.xml')],
    ['pretty-printed, entities, CDATA, unknown and empty elements, nextToken', ODD_VOLUMES],
    [
      'an empty volumeSet',
      '<DescribeVolumesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><volumeSet/></DescribeVolumesResponse>',
    ],
  ])('%s: what the SDK decodes, field for field', async (_, body) => {
    const { sdk, narrow } = await both(() => new DescribeVolumesCommand({}), body);
    expect(without$metadata(narrow)).toEqual(project(sdk, DESCRIBE_VOLUMES.fields));
  });

  it('decodes entity escapes and CDATA as text', async () => {
    const { narrow } = await both(() => new DescribeVolumesCommand({}), ODD_VOLUMES);
    expect(narrow.NextToken).toBe('eyJ2IjoxfQ==');
    const [first, second] = narrow.Volumes ?? [];
    expect(first?.Tags).toEqual([
      { Key: 'team', Value: 'a&b <c> "d" \'e\' é' },
      { Key: 'note', Value: '<raw & unescaped>' },
      { Key: 'empty', Value: '' },
    ]);
    expect(first?.Attachments?.map((a) => a.InstanceId)).toEqual(['i-0aaaaaaaaaaaaaaa1', 'i-0aaaaaaaaaaaaaaa2']);
    // The unknown element's own <item><volumeId> never becomes a volume or an attachment.
    expect(narrow.Volumes?.map((v) => v.VolumeId)).toEqual(['vol-0aaaaaaaaaaaaaaa1', 'vol-0aaaaaaaaaaaaaaa2']);
    expect(second).toMatchObject({ Attachments: [], Tags: [], Encrypted: false, MultiAttachEnabled: false });
  });

  it('decodes a character reference outside the BMP, which the SDK’s parser drops', async () => {
    const odd = ODD_VOLUMES.replace('&#233;', '&#233; &#x1F600;');
    const output = (await decodeBody(DESCRIBE_VOLUMES, odd)) as { Volumes: { Tags: unknown[] }[] };
    expect(output.Volumes[0]?.Tags[0]).toEqual({ Key: 'team', Value: 'a&b <c> "d" \'e\' é 😀' });
  });

  it('matches names by their local part under a namespace prefix (the SDK’s parser finds nothing there)', async () => {
    expect(await decodeBody(DESCRIBE_VOLUMES, PREFIXED_VOLUMES)).toEqual(await decodeBody(DESCRIBE_VOLUMES, ODD_VOLUMES));
  });

  it('reads a body streamed in one-byte chunks (a character split across chunks included)', async () => {
    const bytes = new TextEncoder().encode(ODD_VOLUMES);
    const oneByOne = Readable.from(Array.from(bytes, (byte) => new Uint8Array([byte])));
    expect(await decodeBody(DESCRIBE_VOLUMES, oneByOne)).toEqual(await decodeBody(DESCRIBE_VOLUMES, ODD_VOLUMES));
  });

  it.each([
    ['a truncated body', ODD_VOLUMES.slice(0, 400), /not well-formed XML/],
    ['another action’s response', recorded('describe-instances.xml'), /expected DescribeVolumesResponse, got DescribeInstancesResponse/],
    ['an unparseable timestamp', ODD_VOLUMES.replace('2026-11-20T10:00:00.000Z', 'yesterday'), /not a timestamp: "yesterday"/],
    // The SDK would answer an empty 200 with no volumes: every one of them missing.
    ['an empty body', '', /not well-formed XML/],
  ])('rejects %s with a clear error', async (_, body, message) => {
    const failure = answering(200, body, true).send(new DescribeVolumesCommand({}));
    await expect(failure).rejects.toMatchObject({ name: 'Ec2DecodeError', message: expect.stringMatching(message) as unknown });
  });
});

describe('DescribeInstances decoded narrowly', () => {
  it.each([
    ['recorded from the local EC2', recorded('describe-instances.xml')],
    ['pretty-printed with unknown elements', ODD_INSTANCES],
  ])('%s: what the SDK decodes, field for field', async (_, body) => {
    const { sdk, narrow } = await both(() => new DescribeInstancesCommand({}), body);
    expect(without$metadata(narrow)).toEqual(project(sdk, DESCRIBE_INSTANCES.fields));
    expect(narrow.NextToken === undefined).toBe(sdk.NextToken === undefined);
  });
});

const errorBody = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${code}</Code><Message>${message}</Message></Error></Errors><RequestID>ea966190-f9aa-478e-9ede-cb5432daacc0</RequestID></Response>`;

describe('errors stay the SDK’s', () => {
  it.each([
    [400, 'InvalidVolume.NotFound', "The volume 'vol-0aaaaaaaaaaaaaaa1' does not exist."],
    [400, 'InvalidInstanceID.NotFound', "The instance IDs 'i-0aaaaaaaaaaaaaaa1, i-0aaaaaaaaaaaaaaa2' do not exist"],
    [503, 'RequestLimitExceeded', 'Request limit exceeded.'],
    [403, 'UnauthorizedOperation', 'You are not authorized to perform this operation.'],
    [412, 'DryRunOperation', 'Request would have succeeded, but DryRun flag is set.'],
  ])('%i %s classifies as without the narrow decoding', async (status, code, message) => {
    const classify = (narrow: boolean) =>
      answering(status, errorBody(code, message), narrow)
        .send(new DescribeVolumesCommand({}))
        .then(() => expect.fail('the call succeeded'), classifyEc2Error);
    const narrow = await classify(true);
    expect(narrow).toEqual(await classify(false));
    expect(narrow).toMatchObject({ code, message });
  });

  it('the production client decodes the two describes narrowly', () => {
    const names = createEc2Client({ region: 'eu-west-1' }).middlewareStack.identify().join('\n');
    expect(names).toMatch(/ec2NarrowDecode/);
    expect(names).toMatch(/ec2NarrowOutput/);
  });
});
