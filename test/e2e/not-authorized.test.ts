/**
 * A refused call is named everywhere (issue 27): a volume without the tags the role requires is
 * refused by the local EC2 with EC2's own UnauthorizedOperation under the stack's role policy; the
 * pass reports it (and counts it for the UnauthorizedCalls metric), backs off at the cap instead of
 * retrying every pass, `status` has a row for it and `explain` names the missing tag; once the tag
 * is added the next try attaches it.
 */
import { CreateTagsCommand } from '@aws-sdk/client-ec2';
import { expect, it } from 'vitest';
import type { Controller } from '../../lambda/composition.js';
import { loadAndExplain } from '../../lambda/cli/explain/load.js';
import { statusRows } from '../../lambda/cli/format.js';
import type { RunningClock } from '../../sandbox/clock.js';
import type { World } from '../../sandbox/world.js';
import { useWorld } from './world-fixture.js';

let world: World;
let controller: Controller;
let clock: RunningClock;
useWorld((started) => ({ world, controller, clock } = started));

const pass = () => controller.fullPass({ deadline: clock.now() + 60_000 });

it('refuses an untagged volume with EC2’s error, names it in the report, status and explain, and attaches it once tagged', async () => {
  const volume = await world.createVolume({ name: 'data-db-0', untagged: true });
  world.addPod('db-0', volume, 'node-1');

  const refused = await pass();

  expect(refused.results).toContainEqual(
    expect.objectContaining({
      kind: 'attach',
      outcome: 'failed',
      unauthorized: true,
      detail: expect.stringMatching(
        new RegExp(
          `^unauthorized: You are not authorized to perform this operation\\. User: \\S+ is not authorized to perform: ec2:AttachVolume on resource: arn:aws:ec2:us-east-1:123456789012:volume/${volume.volumeId} because`,
        ),
      ) as string,
    }),
  );
  expect(refused.unauthorizedCalls).toBe(1);
  const { records } = await controller.ports.store.scan();
  expect(statusRows(records, clock.now())).toContainEqual(
    expect.objectContaining({
      volume: volume.volumeId,
      node: 'node-1',
      state: 'not attached',
      lastError: expect.stringMatching(/^UnauthorizedOperation: /) as string,
    }),
  );
  const explained = await loadAndExplain(controller, { kind: 'pod', namespace: 'default', name: 'db-0' });
  expect(explained.chains[0]?.code).toBe('not-authorized');
  expect(explained.chains[0]?.sentence).toContain(
    `not authorized: volume ${volume.volumeId} lacks one of the tags ebs.csi.aws.com/cluster-name=world, kubernetes.io/cluster/world=owned that the role requires`,
  );

  // Backing off at the cap: the next passes do not ask EC2 again.
  await pass();
  expect(world.ec2.counters().calls.AttachVolume).toBe(1);

  await world.ec2Client.send(
    new CreateTagsCommand({ Resources: [volume.volumeId], Tags: [{ Key: 'ebs.csi.aws.com/cluster-name', Value: 'world' }] }),
  );
  clock.advance(125_000);
  const attached = await pass();

  expect(attached.results).toContainEqual(expect.objectContaining({ kind: 'attach', volumeId: volume.volumeId, outcome: 'ok' }));
  expect(attached.unauthorizedCalls).toBe(0);
});
