/** The client factory: deliberate retry settings, and the endpoint taken from AWS_ENDPOINT_URL_EC2 by the SDK. */
import { DescribeVolumesCommand } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ec2BlockStorage } from '../../lambda/adapters/ec2/block-storage.js';
import { createEc2Client, EC2_RETRY_DEFAULTS } from '../../lambda/adapters/ec2/client.js';
import type { RateLimiter } from '../../lambda/adapters/ec2/rate-limit.js';
import type { LocalEc2 } from '../../sandbox/ec2/server.js';
import { clientFor, createVolume, localEc2, runInstance, withEndpointEnv } from './support.js';
import { memoryClaims } from '../support/device-claims.js';
import { systemClock } from '../../lambda/clock.js';

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

  it('reaches the endpoint in AWS_ENDPOINT_URL_EC2, read by the SDK itself', async () => {
    const client = createEc2Client({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
    ec2.resetCounters();
    await withEndpointEnv(ec2.endpoint, () => client.send(new DescribeVolumesCommand({})));
    expect(ec2.counters().calls.DescribeVolumes).toBe(1);
  });
});

describe('rate limiter', () => {
  it('only AttachVolume and DetachVolume wait for a token', async () => {
    const client = await clientFor(ec2);
    let acquired = 0;
    const limiter: RateLimiter = { acquire: () => Promise.resolve(void (acquired += 1)) };
    const storage = new Ec2BlockStorage({ client, clock: systemClock, limiter });
    const instanceId = await runInstance(client);
    const volumeId = await createVolume(client);
    await storage.attach({ volumeId, instanceId, devices: memoryClaims() });
    await storage.describeVolumes([volumeId]);
    await storage.describeInstances([instanceId]);
    await storage.detach({ volumeId, instanceId, force: false });
    expect(acquired).toBe(2);
  });
});
