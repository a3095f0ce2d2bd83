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

describe('a mutating call prepared beside its last preconditions (the request names a go-ahead)', () => {
  function deferred() {
    let resolve: (why: string | undefined) => void = () => undefined;
    const promise = new Promise<string | undefined>((r) => (resolve = r));
    return { promise, resolve };
  }
  const tick = () => new Promise((resolve) => setTimeout(resolve, 30));

  async function prepared() {
    const taken: MutatingAction[] = [];
    const budget: RateLimiter = { acquire: (action) => Promise.resolve(void taken.push(action)) };
    const client = await clientFor(ec2, { maxAttempts: 3, budget });
    const instanceId = await runInstance(client);
    const volumeId = await createVolume(client);
    return { client, taken, instanceId, volumeId, storage: new Ec2BlockStorage({ client, clock: systemClock }) };
  }

  it('AttachVolume: the device name is claimed and the token taken while the go-ahead is pending; one token in all, sent once it comes', async () => {
    const { taken, instanceId, volumeId, storage } = await prepared();
    const ready = deferred();
    const claims = memoryClaims();
    ec2.resetCounters();
    const attaching = storage.attach({ volumeId, instanceId, devices: claims, ready: ready.promise });
    await tick();
    expect(taken).toEqual(['AttachVolume']);
    expect(ec2.counters().calls.AttachVolume ?? 0).toBe(0);
    ready.resolve(undefined);
    expect(await attaching).toMatchObject({ kind: 'started', device: '/dev/xvdaa' });
    expect(ec2.counters().calls.AttachVolume).toBe(1);
    expect(taken).toEqual(['AttachVolume']);
  });

  it('AttachVolume withheld: a go-ahead that says why not sends nothing and frees the claimed name (the token is spent)', async () => {
    const { taken, instanceId, volumeId, storage } = await prepared();
    const claims = memoryClaims();
    ec2.resetCounters();
    const outcome = await storage.attach({
      volumeId,
      instanceId,
      devices: claims,
      ready: Promise.resolve('the finalizer patch was refused'),
    });
    expect(outcome).toEqual({ kind: 'withheld', message: 'the finalizer patch was refused' });
    expect(ec2.counters().calls.AttachVolume ?? 0).toBe(0);
    expect(claims.unusedNames).toEqual(['/dev/xvdaa']);
    expect(taken).toEqual(['AttachVolume']);
  });

  it('a prepaid AttachVolume retried by the SDK: the retries take their own tokens (2 failures → 3 tokens)', async () => {
    const { taken, instanceId, volumeId, storage } = await prepared();
    ec2.failNext({ action: 'AttachVolume', count: 2, code: 'InternalError' });
    const outcome = await storage.attach({ volumeId, instanceId, devices: memoryClaims(), ready: Promise.resolve(undefined) });
    expect(outcome.kind).toBe('started');
    expect(taken).toEqual(['AttachVolume', 'AttachVolume', 'AttachVolume']);
  });

  it('DetachVolume: the token is taken while the go-ahead is pending, the call sent once it comes; withheld otherwise', async () => {
    const { taken, instanceId, volumeId, storage } = await prepared();
    await storage.attach({ volumeId, instanceId, devices: memoryClaims() });
    taken.length = 0;
    ec2.resetCounters();
    const ready = deferred();
    const detaching = storage.detach({ volumeId, instanceId, force: false, ready: ready.promise });
    await tick();
    expect(taken).toEqual(['DetachVolume']);
    expect(ec2.counters().calls.DetachVolume ?? 0).toBe(0);
    ready.resolve(undefined);
    expect(await detaching).toEqual({ kind: 'started' });
    expect(taken).toEqual(['DetachVolume']);
    const withheld = await storage.detach({ volumeId, instanceId, force: false, ready: Promise.resolve('the intent lost its race') });
    expect(withheld).toEqual({ kind: 'withheld', message: 'the intent lost its race' });
    expect(ec2.counters().calls.DetachVolume).toBe(1);
  });

  it('a go-ahead that fails (the caller threw) withholds the call instead of throwing', async () => {
    const { instanceId, volumeId, storage } = await prepared();
    const outcome = await storage.detach({ volumeId, instanceId, force: false, ready: Promise.reject(new Error('store down')) });
    expect(outcome).toEqual({ kind: 'withheld', message: 'store down' });
  });
});
