/**
 * Batched describes go out a few at a time: never one after another (a round trip each), never
 * all at once (EC2's non-mutating bucket is shared by the account).
 */
import type { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { DescribeVolumesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { Ec2Reader, READ_CONCURRENCY } from '../../lambda/adapters/ec2/describe.js';

/** A client whose answers wait until released, counting how many calls are in flight at once. */
function heldClient() {
  let inFlight = 0;
  let most = 0;
  const held: (() => void)[] = [];
  const send = (command: DescribeVolumesCommand | DescribeInstancesCommand) => {
    inFlight += 1;
    most = Math.max(most, inFlight);
    return new Promise((resolve) =>
      held.push(() => {
        inFlight -= 1;
        if (command instanceof DescribeVolumesCommand)
          resolve({ Volumes: (command.input.VolumeIds ?? []).map((VolumeId) => ({ VolumeId, State: 'available', Attachments: [] })) });
        else
          resolve({
            Reservations: [
              { Instances: (command.input.InstanceIds ?? []).map((InstanceId) => ({ InstanceId, State: { Name: 'running' } })) },
            ],
          });
      }),
    );
  };
  /** Releases whatever is held, turn after turn, until `read` settles. */
  const releaseUntil = async <T>(read: Promise<T>): Promise<T> => {
    let settled = false;
    void read.finally(() => (settled = true));
    while (!settled) {
      held.splice(0).forEach((release) => release());
      await new Promise((resolve) => setImmediate(resolve));
    }
    return read;
  };
  return { client: { send } as unknown as EC2Client, most: () => most, releaseUntil };
}

const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(17, '0')}`);

describe(`describes: batches of 500, at most ${READ_CONCURRENCY} in flight`, () => {
  it.each<[string, (reader: Ec2Reader, n: number) => Promise<Map<string, unknown>>]>([
    ['DescribeVolumes', (reader: Ec2Reader, n: number) => reader.describeVolumes(ids('vol-', n))],
    ['DescribeInstances', (reader: Ec2Reader, n: number) => reader.describeInstances(ids('i-', n))],
  ])('%s of 5,000 ids', async (_, describeAll) => {
    const fake = heldClient();
    const result = await fake.releaseUntil(describeAll(new Ec2Reader(fake.client), 5_000));
    expect(result.size).toBe(5_000);
    const missing = [...result.values()].filter((v) => v === 'missing' || (v as { exists?: boolean }).exists === false);
    expect(missing).toEqual([]);
    expect(fake.most()).toBe(READ_CONCURRENCY);
  });
});
