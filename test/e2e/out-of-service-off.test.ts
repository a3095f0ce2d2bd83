import { StopInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { ec2StateChange, lambdaContext, sqsBatch } from '../../sandbox/events.js';
import type { Handlers } from '../../sandbox/local-stack.js';
import type { RunningClock } from '../../sandbox/clock.js';
import type { World, WorldVolume } from '../../sandbox/world.js';
import { reportedOn } from '../support/kube-reads.js';
import {
  mountedDb as sceneMountedDb,
  replacementScheduled as sceneReplacement,
  taintsOf as sceneTaints,
  type Scene,
} from './dead-instance-scene.js';
import { useWorld } from './world-fixture.js';

let world: World;
let clock: RunningClock;
let handlers: Handlers;
useWorld((started) => ({ world, clock, handlers } = started), { env: { OUT_OF_SERVICE_TAINT: 'off' } });

const scene = (): Scene => ({ world, clock, handlers });
const taintsOf = (name: string) => sceneTaints(scene(), name);
const mountedDb = () => sceneMountedDb(scene());

const instance1 = () => world.nodes[0]!.instanceId;

async function deadInstance(state: 'stopped' | 'terminated', volume: WorldVolume) {
  const command =
    state === 'stopped'
      ? new StopInstancesCommand({ InstanceIds: [instance1()] })
      : new TerminateInstancesCommand({ InstanceIds: [instance1()] });
  await world.ec2Client.send(command);
  clock.advance(250);
  await handlers.ec2Event(sqsBatch([ec2StateChange(instance1(), state, clock.now())]), lambdaContext());
  await sceneReplacement(scene(), volume);
}

describe('OUT_OF_SERVICE_TAINT=off: what it costs', () => {
  it("a stopped instance's node is never tainted, and its volume waits while the node still looks Ready and mounted", async () => {
    const volume = await mountedDb();
    await deadInstance('stopped', volume);

    expect(taintsOf('node-1')).toEqual([]);
    expect(world.ec2.counters().calls.DetachVolume).toBeUndefined();
    expect(reportedOn(world, 'node-2')).toEqual([]);
  });

  it('a terminated instance is not tainted either; in controller mode EC2 released the volume itself, so the replacement still attaches', async () => {
    const volume = await mountedDb();
    await deadInstance('terminated', volume);

    expect(taintsOf('node-1')).toEqual([]);
    expect(reportedOn(world, 'node-2')).toEqual([{ name: volume.uniqueName, devicePath: '/dev/xvdaa' }]);
  });
});
