/**
 * Issue 12's measurement: instance dead → the replacement pod's volume attached on its new node,
 * through the real handlers, in either operating mode. db-0 runs on node-1 with its volume attached
 * and mounted; node-1's instance is terminated (or stopped) and EC2's state-change event reaches
 * our handler. The cluster then plays upstream's order (sandbox/kcm/pod-eviction.ts): taint
 * eviction deletes db-0 at once; the node turns NotReady `--node-monitor-grace-period` after its
 * last heartbeat (the clock jumps there once nothing else can happen before it); pod GC
 * force-deletes db-0; the StatefulSet controller and the scheduler place db-0 again on node-2, and
 * the exporter forwards its `Scheduled` event to our cluster-event handler. kcm's attach/detach
 * controller runs in attacher mode only (in controller mode we are it).
 */
import { StopInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { volumeAttachmentName } from '../lambda/adapters/kubernetes/volume-attachment-name.js';
import type { KubeNode, KubeVolumeAttachment } from '../lambda/core/kube.js';
import { RunningClock } from './clock.js';
import { ec2StateChange, kubernetesEvent, lambdaContext, sqsBatch } from './events.js';
import { createPodControllers } from './kcm/pod-eviction.js';
import { startWorld, type World, type WorldVolume } from './world.js';

/** kcm's --node-monitor-grace-period (40 s; recent releases 50 s): the node turns NotReady this long after its last heartbeat. */
export const NODE_MONITOR_GRACE_MS = 40_000;
/** The targeted functions' timeout (infra/stack.ts TARGETED_PASS). */
const TARGETED_TIMEOUT_MS = 120_000;
const PLAYER_TICK_MS = 10;

export interface DeadInstanceOptions {
  mode: 'controller' | 'attacher';
  state: 'terminated' | 'stopped';
  env?: Record<string, string>;
  /** The exporter forwards the replacement's `Scheduled` event (default); false: only the EC2 event's pass runs. */
  forwardScheduled?: boolean;
}

export interface DeadInstanceFigures {
  mode: DeadInstanceOptions['mode'];
  state: DeadInstanceOptions['state'];
  forwardScheduled: boolean;
  /** Clock time from EC2's event to the volume attached on node-2 as the kubelet waits for it (VA attached, or node status). */
  storyMs?: number;
  /** Real time of the same span: the story time less the clock's jump to NotReady. */
  wallMs?: number;
  /** Our handler invocations after the EC2 event, in order, with their start and end (clock ms after the event). */
  passes: { trigger: string; startMs: number; endMs?: number }[];
  /** Requests our controller made meanwhile: Kubernetes API, EC2. */
  kubeRequests: number;
  ec2Calls: number;
  /** DetachVolume calls and whether any set Force. */
  detaches: { force: boolean }[];
}

/** Attached on node-2 as the kubelet waits for it: attacher mode's VA, controller mode's node status. */
function attachedOnNode2(world: World, volume: WorldVolume, mode: DeadInstanceOptions['mode']): boolean {
  if (mode === 'attacher') {
    const va = world.kube.get('VolumeAttachment', undefined, volumeAttachmentName(volume.volumeId, 'node-2')) as
      KubeVolumeAttachment | undefined;
    return va?.status?.attached === true;
  }
  const node = world.kube.get('Node', undefined, 'node-2') as KubeNode;
  return (node.status?.volumesAttached ?? []).some((v) => v.name === volume.uniqueName);
}

async function mountedDb(world: World): Promise<WorldVolume> {
  const volume = await world.createVolume({ name: 'data-db-0' });
  world.addPod('db-0', volume, 'node-1');
  world.kcm?.step(); // kcm creates the VolumeAttachment (attacher mode)
  await world.controller.fullPass({ deadline: world.clock.now() + TARGETED_TIMEOUT_MS });
  world.kcm?.step(); // and sees it attached
  world.kube.kubelet.setVolumesInUse('node-1', [volume.uniqueName]);
  return volume;
}

export async function measureDeadInstance(options: DeadInstanceOptions): Promise<DeadInstanceFigures> {
  const clock = new RunningClock();
  const world = await startWorld({
    nodes: 2,
    clock,
    mode: options.mode,
    simulateKcm: options.mode === 'attacher',
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  try {
    return await play(world, clock, options);
  } finally {
    await world.stop();
  }
}

async function play(world: World, clock: RunningClock, options: DeadInstanceOptions): Promise<DeadInstanceFigures> {
  const volume = await mountedDb(world);
  const handlers = world.handlers();
  const instance = world.nodes[0]!.instanceId;
  const diedAt = clock.now();
  const kill =
    options.state === 'terminated'
      ? new TerminateInstancesCommand({ InstanceIds: [instance] })
      : new StopInstancesCommand({ InstanceIds: [instance] });
  await world.ec2Client.send(kill);
  clock.advance(250); // EC2 reaches the state, then sends its event
  const requestsBefore = world.kube.requests().length;
  const ec2Before = world.ec2.counters().total;
  const t0 = clock.now();
  const wall0 = performance.now();
  const passes: DeadInstanceFigures['passes'] = [];
  let attachedAt: { story: number; wall: number } | undefined;
  const seeIfAttached = () => {
    if (attachedAt === undefined && attachedOnNode2(world, volume, options.mode))
      attachedAt = { story: clock.now(), wall: performance.now() };
  };
  const invoke = async (trigger: string, run: () => Promise<unknown>) => {
    const pass: DeadInstanceFigures['passes'][number] = { trigger, startMs: clock.now() - t0 };
    passes.push(pass);
    await run();
    seeIfAttached(); // a pass that attached and ended between two of the player's ticks still gets the credit
    pass.endMs = clock.now() - t0;
  };
  const inFlight = [
    invoke(`EC2 event (${options.state})`, () =>
      handlers.ec2Event(sqsBatch([ec2StateChange(instance, options.state, t0)]), lambdaContext(TARGETED_TIMEOUT_MS)),
    ),
  ];

  const stopKcm = world.kcm?.run();
  const podControllers = world.kcm === undefined ? createPodControllers(world.kube, clock) : undefined;
  let notReady = false;
  let replaced = false;
  const deadline = performance.now() + TARGETED_TIMEOUT_MS;
  while (attachedAt === undefined && performance.now() < deadline) {
    podControllers?.();
    const node1 = world.kube.get('Node', undefined, 'node-1') as KubeNode;
    const tainted = (node1.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/out-of-service');
    // Once nothing but waiting happens before the missed heartbeats (attacher mode: the EC2 pass polls), the clock jumps there.
    if (tainted && !notReady && (options.mode === 'attacher' || passes[0]?.endMs !== undefined)) {
      const wait = Math.max(0, diedAt + NODE_MONITOR_GRACE_MS - clock.now());
      clock.advance(wait);
      world.kube.kubelet.setReady('node-1', false);
      notReady = true;
    }
    if (!replaced && world.kube.get('Pod', 'default', 'db-0') === undefined) {
      world.addPod('db-0', volume, 'node-2');
      replaced = true;
      if (options.forwardScheduled !== false) {
        const event = kubernetesEvent(
          { kind: 'Pod', namespace: 'default', name: 'db-0' },
          'Scheduled',
          'Successfully assigned default/db-0 to node-2',
          clock.now(),
        );
        inFlight.push(
          invoke('Scheduled db-0 → node-2', () => handlers.clusterEvent(sqsBatch([event]), lambdaContext(TARGETED_TIMEOUT_MS))),
        );
      }
    }
    seeIfAttached();
    if (attachedAt === undefined) await new Promise((resolve) => setTimeout(resolve, PLAYER_TICK_MS));
  }
  await Promise.all(inFlight);
  await stopKcm?.();
  const detaches = world.ec2.requests('DetachVolume').map((r) => ({ force: r.params.Force === 'true' }));
  return {
    mode: options.mode,
    state: options.state,
    forwardScheduled: options.forwardScheduled !== false,
    ...(attachedAt === undefined ? {} : { storyMs: attachedAt.story - t0, wallMs: attachedAt.wall - wall0 }),
    passes,
    kubeRequests: world.kube.requests().length - requestsBefore,
    ec2Calls: world.ec2.counters().total - ec2Before,
    detaches,
  };
}

/** The passes running when the volume was attached (the one that attached it among them). */
export function passesAt(f: DeadInstanceFigures): string[] {
  const at = f.storyMs;
  if (at === undefined) return [];
  return f.passes.filter((p) => p.startMs <= at && (p.endMs ?? Infinity) >= at).map((p) => p.trigger);
}
