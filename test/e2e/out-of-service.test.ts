import { StartInstancesCommand, StopInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import type { KubeNode } from '../../lambda/core/kube.js';
import { TAINTED_BY_US_ANNOTATION } from '../../lambda/core/out-of-service.js';
import { ec2StateChange, lambdaContext, sqsBatch } from '../../sandbox/events.js';
import type { Handlers } from '../../sandbox/local-stack.js';
import type { World, WorldVolume } from '../../sandbox/world.js';
import type { RunningClock } from '../../sandbox/clock.js';
import { reportedOn } from '../support/kube-reads.js';
import {
  mountedDb as sceneMountedDb,
  taintsOf as sceneTaints,
  replacementScheduled as sceneReplacement,
  type Scene,
} from './dead-instance-scene.js';
import { useWorld } from './world-fixture.js';

let world: World;
let clock: RunningClock;
let handlers: Handlers;
/**
 * EC2's stop and termination take this long on the stack's clock, which also runs in real time:
 * long enough that no loaded machine sees 'stopping' turn 'stopped' before the test jumps the clock.
 */
const SHUTDOWN_MS = 10_000;
useWorld((started) => ({ world, clock, handlers } = started), {
  ec2Delays: { instanceStopMs: SHUTDOWN_MS, instanceTerminateMs: SHUTDOWN_MS },
});

const scene = (): Scene => ({ world, clock, handlers });
const taintsOf = (name: string) => sceneTaints(scene(), name);
const mountedDb = () => sceneMountedDb(scene());
const replacementScheduled = (volume: WorldVolume) => sceneReplacement(scene(), volume);

const KEY = 'node.kubernetes.io/out-of-service';
const nodeObject = (name: string) => world.kube.get('Node', undefined, name) as KubeNode;
const markOf = (name: string) => nodeObject(name).metadata.annotations?.[TAINTED_BY_US_ANNOTATION];
const instanceOf = (index: number) => world.nodes[index]!.instanceId;

const ec2Event = (instanceId: string, state: string) =>
  handlers.ec2Event(sqsBatch([ec2StateChange(instanceId, state, clock.now())]), lambdaContext());

describe('dead instances: the out-of-service taint, through the real handlers', () => {
  it("a spot reclaim: the 'terminated' event taints the node, and the replacement's own pass attaches on the new node", async () => {
    const volume = await mountedDb();
    await world.ec2Client.send(new TerminateInstancesCommand({ InstanceIds: [instanceOf(0)] }));
    clock.advance(SHUTDOWN_MS); // EC2's termination delay; node-1 still looks Ready (its last heartbeat is recent)

    expect(await ec2Event(instanceOf(0), 'terminated')).toEqual({ batchItemFailures: [] });
    expect(taintsOf('node-1')).toEqual([{ key: KEY, value: 'nodeshutdown', effect: 'NoExecute' }]);
    expect(markOf('node-1')).toBe(instanceOf(0));

    expect(await replacementScheduled(volume)).toEqual({ batchItemFailures: [] });
    expect(reportedOn(world, 'node-2')).toEqual([{ name: volume.uniqueName, devicePath: '/dev/xvdaa' }]);
  });

  it("a stopped instance: the taint lets the replacement's pass detach at once, although node-1 still looks Ready and mounted", async () => {
    const volume = await mountedDb();
    await world.ec2Client.send(new StopInstancesCommand({ InstanceIds: [instanceOf(0)] }));
    clock.advance(SHUTDOWN_MS);

    await ec2Event(instanceOf(0), 'stopped');
    await replacementScheduled(volume);

    expect(world.ec2.requests('DetachVolume').map((r) => r.params)).toEqual([
      expect.objectContaining({ VolumeId: volume.volumeId, Force: 'true' }),
    ]);
  });

  it("'stopping' alone places no taint; 'stopped' then does", async () => {
    await mountedDb();
    await world.ec2Client.send(new StopInstancesCommand({ InstanceIds: [instanceOf(0)] }));

    await ec2Event(instanceOf(0), 'stopping');
    expect(taintsOf('node-1')).toEqual([]);

    clock.advance(SHUTDOWN_MS);
    await ec2Event(instanceOf(0), 'stopped');
    expect(taintsOf('node-1').map((t) => t.key)).toEqual([KEY]);
  });

  it('our taint is removed by the first full pass after the instance runs again', async () => {
    await mountedDb();
    await world.ec2Client.send(new StopInstancesCommand({ InstanceIds: [instanceOf(0)] }));
    clock.advance(SHUTDOWN_MS);
    await ec2Event(instanceOf(0), 'stopped');
    await world.ec2Client.send(new StartInstancesCommand({ InstanceIds: [instanceOf(0)] }));
    clock.advance(61_000); // the sync period: the full pass asks EC2 about every instance again

    await handlers.scheduled({ pass: 'full' }, lambdaContext());

    expect(taintsOf('node-1')).toEqual([]);
    expect(markOf('node-1')).toBeUndefined();
  });

  it("someone else's out-of-service taint is left alone, also when the instance runs again", async () => {
    await mountedDb();
    world.kube.kubelet.setOutOfService('node-1', true);
    await world.ec2Client.send(new StopInstancesCommand({ InstanceIds: [instanceOf(0)] }));
    clock.advance(SHUTDOWN_MS);
    await ec2Event(instanceOf(0), 'stopped');
    expect(markOf('node-1')).toBeUndefined();

    await world.ec2Client.send(new StartInstancesCommand({ InstanceIds: [instanceOf(0)] }));
    clock.advance(61_000);
    await handlers.scheduled({ pass: 'full' }, lambdaContext());

    expect(taintsOf('node-1')).toEqual([expect.objectContaining({ key: KEY, value: 'nodeshutdown', effect: 'NoExecute' })]);
  });

  it('a running instance never taints its node', async () => {
    await mountedDb();
    clock.advance(61_000);
    await handlers.scheduled({ pass: 'full' }, lambdaContext());
    expect(taintsOf('node-1')).toEqual([]);
    expect(taintsOf('node-2')).toEqual([]);
  });
});
