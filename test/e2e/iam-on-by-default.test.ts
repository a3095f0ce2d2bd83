/**
 * The local EC2 holds the controller to the stack's role policy on every path that runs it, unless
 * a caller says `iam: false`: the local stack's default, the e2e world and the fault suite's rig in
 * both modes. (`npm start` proves it in its "Day one in AWS" chapter.) The proof is the one an
 * account would give: the controller's own credentials may describe, and are refused what the role
 * was never granted, with EC2's UnauthorizedOperation.
 */
import { CreateVolumeCommand, DescribeVolumesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { CONTROLLER_CREDENTIALS, startLocalStack } from '../../sandbox/local-stack.js';
import { startWorld } from '../../sandbox/world.js';
import { startRig } from '../faults/rig.js';

async function heldToTheRolePolicy(endpoint: string): Promise<{ describe: string; create: string }> {
  const client = new EC2Client({ region: 'us-east-1', endpoint, credentials: CONTROLLER_CREDENTIALS, maxAttempts: 1 });
  const outcome = (call: Promise<unknown>) =>
    call.then(
      () => 'allowed',
      (error: { name: string; $metadata: { httpStatusCode?: number } }) => `${error.name} ${error.$metadata.httpStatusCode}`,
    );
  try {
    return {
      describe: await outcome(client.send(new DescribeVolumesCommand({}))),
      create: await outcome(client.send(new CreateVolumeCommand({ AvailabilityZone: 'us-east-1a', Size: 1 }))),
    };
  } finally {
    client.destroy();
  }
}

const HELD = { describe: 'allowed', create: 'UnauthorizedOperation 403' };

describe("the local EC2's IAM check is on by default", () => {
  it('in the local stack started with no options', async () => {
    const stack = await startLocalStack();
    try {
      expect(await heldToTheRolePolicy(stack.ec2.endpoint)).toEqual(HELD);
    } finally {
      await stack.stop();
    }
  });

  it('in the e2e world', async () => {
    const world = await startWorld();
    try {
      expect(await heldToTheRolePolicy(world.ec2.endpoint)).toEqual(HELD);
    } finally {
      await world.stop();
    }
  });

  it.each(['controller', 'attacher'] as const)('in the fault suite’s rig, %s mode', async (mode) => {
    const world = await startRig().world(1, mode);
    try {
      expect(await heldToTheRolePolicy(world.ec2.endpoint)).toEqual(HELD);
    } finally {
      await world.close();
    }
  });

  it('and off only when asked', async () => {
    const stack = await startLocalStack({ iam: false });
    try {
      expect(await heldToTheRolePolicy(stack.ec2.endpoint)).toEqual({ describe: 'allowed', create: 'allowed' });
    } finally {
      await stack.stop();
    }
  });
});
