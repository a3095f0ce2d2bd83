/**
 * The EC2 adapter's describes when a NotFound error names more ids than are missing: some EC2
 * implementations name every requested id. A message parse must never decide that an existing,
 * attached volume (or a running instance) is gone; the adapter confirms before concluding.
 */
import type { EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ec2BlockStorage } from '../../lambda/adapters/ec2/block-storage.js';
import { systemClock } from '../../lambda/clock.js';
import type { LocalEc2 } from '../../sandbox/ec2/server.js';
import { memoryClaims } from '../support/device-claims.js';
import { clientFor, createVolume, localEc2, runInstance } from './support.js';

const UNKNOWN_VOLUME = 'vol-0000000000000dead';
const UNKNOWN_INSTANCE = 'i-0000000000000dead';

describe.each([
  ['EC2 (names the missing ids)', false],
  ['an implementation naming every requested id', true],
])('NotFound from %s', (_name, notFoundNamesEveryId) => {
  let ec2: LocalEc2;
  let client: EC2Client;
  let storage: Ec2BlockStorage;
  beforeAll(async () => {
    ec2 = await localEc2({ model: { notFoundNamesEveryId } });
    client = await clientFor(ec2);
    storage = new Ec2BlockStorage({ client, clock: systemClock });
  });
  afterAll(() => ec2.stop());

  it('an attached volume described beside an unknown one stays attached; only the unknown one is missing', async () => {
    const instanceId = await runInstance(client);
    const attached = await createVolume(client);
    const idle = await createVolume(client);
    const outcome = await storage.attach({ volumeId: attached, instanceId, devices: memoryClaims() });
    const observed = await storage.describeVolumes([attached, UNKNOWN_VOLUME, idle]);
    expect(observed.get(attached)).toMatchObject({
      exists: true,
      attachments: [{ instanceId, device: outcome.kind === 'started' ? outcome.device : '', state: 'attached' }],
    });
    expect(observed.get(idle)).toMatchObject({ exists: true, attachments: [] });
    expect(observed.get(UNKNOWN_VOLUME)).toEqual({ volumeId: UNKNOWN_VOLUME, exists: false, attachments: [] });
  });

  it('a running instance described beside an unknown one is still running', async () => {
    const running = await runInstance(client);
    const states = await storage.describeInstances([UNKNOWN_INSTANCE, running]);
    expect(Object.fromEntries(states)).toEqual({ [running]: 'running', [UNKNOWN_INSTANCE]: 'missing' });
  });
});
