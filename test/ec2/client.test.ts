/** The client factory: deliberate retry settings, and the endpoint taken from AWS_ENDPOINT_URL_EC2 by the SDK. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeVolumesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ec2BlockStorage } from '../../lambda/adapters/ec2/block-storage.js';
import { createEc2Client, EC2_RETRY_DEFAULTS } from '../../lambda/adapters/ec2/client.js';
import type { MutatingAction, RateLimiter } from '../../lambda/adapters/ec2/rate-limit.js';
import type { LocalEc2 } from '../../sandbox/ec2/server.js';
import { clientFor, createVolume, localEc2, runInstance, withEndpointEnv } from './support.js';
import { memoryClaims } from '../support/device-claims.js';
import { systemClock } from '../../lambda/clock.js';
import { withoutSdkLogger } from '../../lambda/adapters/sdk-logger.js';

let ec2: LocalEc2;
beforeAll(async () => {
  ec2 = await localEc2();
});
afterAll(() => ec2.stop());

describe('createEc2Client', () => {
  it('defaults to standard retries with 5 attempts', async () => {
    const client = createEc2Client({ region: 'eu-west-1' });
    expect(EC2_RETRY_DEFAULTS).toEqual({ retryMode: 'standard', maxAttempts: 5 });
    expect(await client.config.retryStrategy()).toMatchObject({ mode: 'standard' });
    expect(await client.config.maxAttempts()).toBe(5);
    expect(await client.config.region()).toBe('eu-west-1');
  });

  it("carries no SDK logger middleware (it deep-copies every answer for a logger that discards it); DynamoDB's neither", () => {
    const names = (client: { middlewareStack: { identify(): string[] } }) => client.middlewareStack.identify().join(' ');
    expect(names(createEc2Client({ region: 'eu-west-1' }))).not.toMatch(/loggerMiddleware/);
    expect(names(new EC2Client({ region: 'eu-west-1' }))).toMatch(/loggerMiddleware/);
    expect(names(withoutSdkLogger(new DynamoDBClient({ region: 'eu-west-1' })))).not.toMatch(/loggerMiddleware/);
  });

  it('reaches the endpoint in AWS_ENDPOINT_URL_EC2, read by the SDK itself', async () => {
    const client = createEc2Client({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
    ec2.resetCounters();
    await withEndpointEnv(ec2.endpoint, () => client.send(new DescribeVolumesCommand({})));
    expect(ec2.counters().calls.DescribeVolumes).toBe(1);
  });
});

describe('the mutating budget on the client', () => {
  async function budgeted(maxAttempts: number) {
    const taken: MutatingAction[] = [];
    const budget: RateLimiter = { acquire: (action) => Promise.resolve(void taken.push(action)) };
    const client = await clientFor(ec2, { maxAttempts, budget });
    return { client, taken, storage: new Ec2BlockStorage({ client, clock: systemClock }) };
  }

  it('only AttachVolume and DetachVolume take a token, one each for a call that succeeds at once', async () => {
    const { client, taken, storage } = await budgeted(1);
    const instanceId = await runInstance(client);
    const volumeId = await createVolume(client);
    await storage.attach({ volumeId, instanceId, devices: memoryClaims() });
    await storage.describeVolumes([volumeId]);
    await storage.describeInstances([instanceId]);
    await storage.detach({ volumeId, instanceId, force: false });
    expect(taken).toEqual(['AttachVolume', 'DetachVolume']);
  });

  it.each([
    ['AttachVolume', 2, 3],
    ['DetachVolume', 1, 2],
  ] as const)('%s retried by the SDK: every attempt takes a token (%i failures → %i tokens)', async (action, failures, tokens) => {
    const { client, taken, storage } = await budgeted(3);
    const instanceId = await runInstance(client);
    const volumeId = await createVolume(client);
    if (action === 'DetachVolume') await storage.attach({ volumeId, instanceId, devices: memoryClaims() });
    taken.length = 0;
    ec2.failNext({ action, count: failures, code: 'InternalError' });
    const outcome =
      action === 'AttachVolume'
        ? await storage.attach({ volumeId, instanceId, devices: memoryClaims() })
        : await storage.detach({ volumeId, instanceId, force: false });
    expect(outcome.kind).toBe('started');
    expect(ec2.counters().calls[action]).toBe(tokens);
    expect(taken).toEqual(Array.from({ length: tokens }, () => action));
  });
});
