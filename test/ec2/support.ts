/** Builders for the EC2 tests: a local EC2, a real SDK client pointed at it, instances and volumes. */
import {
  CreateVolumeCommand,
  DescribeInstancesCommand,
  RunInstancesCommand,
  type EC2Client,
  type _InstanceType,
} from '@aws-sdk/client-ec2';
import { createEc2Client, type Ec2ClientOptions } from '../../lambda/adapters/ec2/client.js';
import { startLocalEc2, type LocalEc2, type LocalEc2Options } from '../../sandbox/ec2/server.js';
import { SANDBOX_IMAGE_ID } from '../../sandbox/ec2/state/images.js';

export const ZONE = 'us-east-1a';
const TEST_CREDENTIALS = { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local-secret' };

/** A local EC2 with instant transitions and no throttling unless the test asks for them. */
export function localEc2(options: LocalEc2Options = {}): Promise<LocalEc2> {
  return startLocalEc2({
    throttle: false,
    ...options,
    delays: { attachMs: 0, detachMs: 0, instanceStartMs: 0, instanceStopMs: 0, instanceTerminateMs: 0, ...options.delays },
  });
}

/**
 * The production factory's client, reaching the local EC2 through AWS_ENDPOINT_URL_EC2 as the
 * SDK reads it. The SDK resolves that variable on a client's first call, so one call pins it.
 */
export async function clientFor(ec2: LocalEc2, options: Partial<Ec2ClientOptions> = {}): Promise<EC2Client> {
  return withEndpointEnv(ec2.endpoint, async () => {
    const client = createEc2Client({ region: 'us-east-1', credentials: TEST_CREDENTIALS, maxAttempts: 1, ...options });
    await client.send(new DescribeInstancesCommand({ MaxResults: 5 }));
    ec2.resetCounters();
    return client;
  });
}

/** Runs `body` with AWS_ENDPOINT_URL_EC2 set, then restores it so no other test inherits it. */
export async function withEndpointEnv<T>(endpoint: string, body: () => Promise<T>): Promise<T> {
  const previous = process.env.AWS_ENDPOINT_URL_EC2;
  process.env.AWS_ENDPOINT_URL_EC2 = endpoint;
  try {
    return await body();
  } finally {
    if (previous === undefined) delete process.env.AWS_ENDPOINT_URL_EC2;
    else process.env.AWS_ENDPOINT_URL_EC2 = previous;
  }
}

export async function runInstance(client: EC2Client, options: { zone?: string; type?: _InstanceType } = {}): Promise<string> {
  const output = await client.send(
    new RunInstancesCommand({
      ImageId: SANDBOX_IMAGE_ID,
      MinCount: 1,
      MaxCount: 1,
      InstanceType: options.type ?? 'm5.large',
      Placement: { AvailabilityZone: options.zone ?? ZONE },
    }),
  );
  const id = output.Instances?.[0]?.InstanceId;
  if (!id) throw new Error('RunInstances returned no instance');
  return id;
}

export async function createVolume(
  client: EC2Client,
  options: { zone?: string; type?: 'gp3' | 'io2'; multiAttach?: boolean; tags?: Record<string, string> } = {},
): Promise<string> {
  const tags = Object.entries(options.tags ?? {}).map(([Key, Value]) => ({ Key, Value }));
  const output = await client.send(
    new CreateVolumeCommand({
      AvailabilityZone: options.zone ?? ZONE,
      Size: 10,
      VolumeType: options.type ?? 'gp3',
      ...(options.multiAttach ? { MultiAttachEnabled: true, Iops: 1000 } : {}),
      ...(tags.length > 0 ? { TagSpecifications: [{ ResourceType: 'volume', Tags: tags }] } : {}),
    }),
  );
  if (!output.VolumeId) throw new Error('CreateVolume returned no volume');
  return output.VolumeId;
}

/** Many volumes at once, written straight into the model (setup for batching tests, not their subject). */
export function seedVolumes(ec2: LocalEc2, count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const volumeId = `vol-${(0x10000000000000000n + BigInt(i)).toString(16).slice(1).padStart(17, '0')}`;
    ec2.world.volumes.set(volumeId, {
      volumeId,
      zone: ZONE,
      size: 1,
      volumeType: 'gp3',
      encrypted: false,
      multiAttachEnabled: false,
      createTime: ec2.clock.now(),
      tags: new Map(),
      attachments: new Map(),
    });
    return volumeId;
  });
}
