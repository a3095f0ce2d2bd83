/** The local EC2 on the wire: Query requests, XML answers and errors, filters, pagination, control API. */
import { CreateTagsCommand, DescribeVolumesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalEc2 } from '../../sandbox/ec2/server.js';
import { clientFor, createVolume, localEc2, runInstance } from './support.js';

let ec2: LocalEc2;
let client: EC2Client;
beforeAll(async () => {
  ec2 = await localEc2();
  client = await clientFor(ec2);
});
afterAll(() => ec2.stop());

const SIGNED = { authorization: 'AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/ec2/aws4_request, SignedHeaders=host, Signature=00' };

function post(body: string, headers: Record<string, string> = SIGNED): Promise<Response> {
  return fetch(`${ec2.endpoint}/`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
}

async function sdkError(promise: Promise<unknown>): Promise<{ name: string; message: string; status?: number }> {
  const error = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as { name: string; message: string; $metadata?: { httpStatusCode?: number } } | undefined;
  if (!error) throw new Error('expected the call to fail');
  return { name: error.name, message: error.message, status: error.$metadata?.httpStatusCode };
}

describe('protocol', () => {
  it('a plain POST of Action=DescribeVolumes&Version=2016-11-15 (as the AWS CLI sends) returns EC2 XML', async () => {
    const volumeId = await createVolume(client);
    const response = await post('Action=DescribeVolumes&Version=2016-11-15');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/xml/);
    const xml = await response.text();
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<DescribeVolumesResponse xmlns="http:\/\/ec2.amazonaws.com\/doc\/2016-11-15\/"><requestId>[0-9a-f-]{36}<\/requestId><volumeSet>/,
    );
    expect(xml).toContain(`<volumeId>${volumeId}</volumeId>`);
  });

  it('GET with the parameters in the query string works too', async () => {
    const response = await fetch(`${ec2.endpoint}/?Action=DescribeInstances&Version=2016-11-15`, { headers: SIGNED });
    expect(await response.text()).toContain('<DescribeInstancesResponse');
  });

  it.each([
    [
      'no Authorization header (401 MissingAuthenticationToken)',
      'Action=DescribeVolumes&Version=2016-11-15',
      {},
      401,
      'MissingAuthenticationToken',
    ],
    ['no Action (400 MissingAction)', 'Version=2016-11-15', SIGNED, 400, 'MissingAction'],
    ['an unknown Action (400 InvalidAction)', 'Action=LaunchRockets&Version=2016-11-15', SIGNED, 400, 'InvalidAction'],
    [
      'a missing required parameter (400 MissingParameter)',
      'Action=AttachVolume&Version=2016-11-15&VolumeId=vol-1',
      SIGNED,
      400,
      'MissingParameter',
    ],
  ])('%s: answered in EC2 error XML', async (_name, body, headers, status, code) => {
    const response = await post(body, headers);
    expect(response.status).toBe(status);
    expect(await response.text()).toMatch(
      new RegExp(
        `^<\\?xml[^>]*>\\n<Response><Errors><Error><Code>${code.replace('.', '\\.')}</Code><Message>[^<]+</Message></Error></Errors><RequestID>[0-9a-f-]{36}</RequestID></Response>$`,
      ),
    );
  });

  it('the SDK reads the code, message and status of an error', async () => {
    expect(
      await sdkError(client.send(new DescribeVolumesCommand({ VolumeIds: ['vol-0000000000000000a', 'vol-0000000000000000b'] }))),
    ).toEqual({
      name: 'InvalidVolume.NotFound',
      message: "The volumes 'vol-0000000000000000a, vol-0000000000000000b' do not exist.",
      status: 400,
    });
  });
});

describe('DescribeVolumes filters', () => {
  let attachedId: string;
  let idleId: string;
  let instanceId: string;
  beforeAll(async () => {
    instanceId = await runInstance(client);
    attachedId = await createVolume(client, { tags: { team: 'storage', 'kubernetes.io/cluster/demo': 'owned' } });
    idleId = await createVolume(client, { tags: { team: 'web' } });
    ec2.world.volumes.get(attachedId)?.attachments.set(instanceId, {
      volumeId: attachedId,
      instanceId,
      device: '/dev/xvdaa',
      attachTime: 0,
      deleteOnTermination: false,
      phase: 'attach',
      since: 0,
      stuck: false,
    });
  });

  const ids = async (filters: { Name: string; Values: string[] }[]) => {
    const output = await client.send(new DescribeVolumesCommand({ Filters: filters }));
    return (output.Volumes ?? [])
      .map((volume) => volume.VolumeId)
      .filter((id) => id === attachedId || id === idleId)
      .sort();
  };

  it.each([
    ['attachment.instance-id', () => [{ Name: 'attachment.instance-id', Values: [instanceId] }], () => [attachedId]],
    [
      'attachment.status',
      () => [
        { Name: 'attachment.status', Values: ['attached'] },
        { Name: 'tag-key', Values: ['team'] },
      ],
      () => [attachedId],
    ],
    ['volume-id (unknown ids are simply absent)', () => [{ Name: 'volume-id', Values: [idleId, 'vol-0000000000000000c'] }], () => [idleId]],
    ['tag:<key>', () => [{ Name: 'tag:team', Values: ['web'] }], () => [idleId]],
    ['tag-key', () => [{ Name: 'tag-key', Values: ['kubernetes.io/cluster/demo'] }], () => [attachedId]],
    ['wildcards in values', () => [{ Name: 'tag:team', Values: ['st*ge'] }], () => [attachedId]],
    [
      'several filters are ANDed',
      () => [
        { Name: 'tag:team', Values: ['web'] },
        { Name: 'status', Values: ['in-use'] },
      ],
      () => [],
    ],
  ])('%s', async (_name, filters, expected) => {
    expect(await ids(filters())).toEqual(expected().sort());
  });

  it('CreateTags adds tags a filter then finds', async () => {
    await client.send(new CreateTagsCommand({ Resources: [idleId], Tags: [{ Key: 'phase', Value: 'two' }] }));
    expect(await ids([{ Name: 'tag:phase', Values: ['two'] }])).toEqual([idleId]);
  });

  it.each([
    ['an unknown filter', [{ Name: 'colour', Values: ['red'] }], 'InvalidParameterValue'],
    [
      'more than 200 filter values',
      [{ Name: 'volume-id', Values: Array.from({ length: 201 }, (_, i) => `vol-${i}`) }],
      'FilterLimitExceeded',
    ],
  ])('%s is refused', async (_name, filters, code) => {
    expect((await sdkError(client.send(new DescribeVolumesCommand({ Filters: filters })))).name).toBe(code);
  });
});

describe('DescribeVolumes pagination', () => {
  it('MaxResults pages through everything once, with NextToken', async () => {
    for (let i = 0; i < 7; i += 1) await createVolume(client);
    const all = (await client.send(new DescribeVolumesCommand({}))).Volumes?.length ?? 0;
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new DescribeVolumesCommand({ MaxResults: 5, NextToken: token }));
      expect(page.Volumes?.length).toBeLessThanOrEqual(5);
      seen.push(...(page.Volumes ?? []).map((volume) => volume.VolumeId ?? ''));
      token = page.NextToken;
    } while (token);
    expect(seen).toHaveLength(all);
    expect(new Set(seen).size).toBe(all);
  });

  it.each([
    ['MaxResults with VolumeIds', { MaxResults: 5, VolumeIds: ['vol-1'] }, 'InvalidParameterCombination'],
    ['MaxResults below 5', { MaxResults: 4 }, 'InvalidParameterValue'],
    ['MaxResults above 500', { MaxResults: 501 }, 'InvalidParameterValue'],
    ['a forged NextToken', { MaxResults: 5, NextToken: 'bogus' }, 'InvalidPaginationToken'],
  ])('%s is refused', async (_name, input, code) => {
    expect((await sdkError(client.send(new DescribeVolumesCommand(input)))).name).toBe(code);
  });
});

describe('control API over HTTP', () => {
  const control = (path: string, body?: unknown) =>
    fetch(`${ec2.endpoint}/_control/${path}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });

  it('fails the next N calls of an action with the code and status asked for', async () => {
    expect((await control('fail', { action: 'DescribeVolumes', count: 2, code: 'RequestLimitExceeded' })).status).toBe(200);
    for (let i = 0; i < 2; i += 1) {
      const response = await post('Action=DescribeVolumes&Version=2016-11-15');
      expect(response.status).toBe(503);
      expect(await response.text()).toContain('<Code>RequestLimitExceeded</Code>');
    }
    expect((await post('Action=DescribeVolumes&Version=2016-11-15')).status).toBe(200);
  });

  it('counts calls by action, and resets', async () => {
    await control('counters/reset', {});
    await post('Action=DescribeVolumes&Version=2016-11-15');
    await post('Action=DescribeVolumes&Version=2016-11-15');
    const counters = (await (await control('counters')).json()) as { calls: Record<string, number>; total: number };
    expect(counters).toMatchObject({ calls: { DescribeVolumes: 2 }, total: 2 });
  });

  it('adds latency to an action', async () => {
    await control('latency', { action: 'DescribeInstances', ms: 120 });
    const started = performance.now();
    await post('Action=DescribeInstances&Version=2016-11-15');
    expect(performance.now() - started).toBeGreaterThanOrEqual(100);
    await control('latency', { action: 'DescribeInstances', ms: 0 });
  });

  it.each([
    ['a body that fails validation', 'fail', { action: 'X', count: 0, code: 'Y' }, 400],
    ['advancing a real clock', 'clock/advance', { ms: 5 }, 400],
    ['an unknown route', 'launch', {}, 404],
  ])('%s is refused with a message', async (_name, path, body, status) => {
    const response = await control(path, body);
    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: string }).error).toBeTruthy();
  });
});
