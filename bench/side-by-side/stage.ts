/**
 * The cluster every side-by-side run plays on, the same for each implementation: a local stack on
 * real time, EC2 that takes seconds to attach and detach, the simulated kcm (attacher mode) and
 * kubelets (pods start once their volumes are mounted, and go once unmounted), each stepped every
 * 100 ms as their reconcile loops are, and the same round trip added to every Kubernetes, EC2 and
 * DynamoDB request. What the bench measures is recorded here: when kcm created or started deleting
 * each VolumeAttachment, when a pod was bound or deleted, when a node's `volumesInUse` let a volume
 * go, and when EC2 received each AttachVolume and DetachVolume (all on the stage's clock: story time).
 */
import { RunningClock } from '../../sandbox/clock.js';
import { createKcm } from '../../sandbox/kcm/kcm.js';
import type { KcmKube } from '../../sandbox/kcm/context.js';
import { Kubelets } from '../../sandbox/kubelets.js';
import { startWorld, type World } from '../../sandbox/world.js';

export interface StageOptions {
  mode: 'controller' | 'attacher';
  nodes: number;
  rttMs: number;
  /** EC2's attach and detach delays (ms). */
  attachMs: number;
  detachMs: number;
  /** How long the kubelet takes to unmount a volume a pod no longer needs. */
  unmountMs: number;
  /** Controller settings for this implementation (e.g. a watcher's pace). */
  env?: Record<string, string>;
}

/** Times (clock.now()) by volume id: the first AttachVolume and DetachVolume EC2 received after each change. */
export interface Recorded {
  vaCreated: Map<string, number>;
  vaDeleting: Map<string, number>;
  attachSent: Map<string, number>;
  detachSent: Map<string, number>;
  /** By volume id: the last time a node's volumesInUse dropped it. */
  unmounted: Map<string, number>;
}

export interface Stage {
  world: World;
  clock: RunningClock;
  kubelets: Kubelets;
  recorded: Recorded;
  /** Adds the round trip to every request (after setup, so creating volumes is not slowed). */
  slowDown(): void;
  stop(): Promise<void>;
}

const LOOP_MS = 100;

/** VolumeAttachment ids are their handles: the volume of a VA kcm writes, read from the PV it names. */
function volumeOfVa(kube: KcmKube, object: { spec?: { source?: { persistentVolumeName?: string } } } | undefined): string | undefined {
  const pv = kube.get('PersistentVolume', undefined, object?.spec?.source?.persistentVolumeName ?? '') as
    { spec?: { csi?: { volumeHandle?: string } } } | undefined;
  return pv?.spec?.csi?.volumeHandle;
}

/** kcm's writes, with the moments the bench measures from. */
function recordingKube(kube: KcmKube, recorded: Recorded, clock: { now(): number }): KcmKube {
  return {
    list: (kind, namespace) => kube.list(kind, namespace) as unknown[],
    get: (kind, namespace, name) => kube.get(kind, namespace, name) as unknown,
    kubelet: kube.kubelet,
    components: {
      create: (kind, namespace, object) => {
        const created = kube.components.create(kind, namespace, object);
        const volume = kind === 'VolumeAttachment' ? volumeOfVa(kube, created as never) : undefined;
        if (volume !== undefined) recorded.vaCreated.set(volume, clock.now());
        return created;
      },
      update: (kind, namespace, name, change, subresource) => kube.components.update(kind, namespace, name, change, subresource),
      delete: (kind, namespace, name) => {
        const volume = kind === 'VolumeAttachment' ? volumeOfVa(kube, kube.get(kind, namespace, name) as never) : undefined;
        const result = kube.components.delete(kind, namespace, name);
        if (volume !== undefined && !result.missing) recorded.vaDeleting.set(volume, clock.now());
        return result;
      },
    },
  };
}

/** Every 100 ms of real time until stopped (kcm's reconciler loop, the kubelets' volume managers). */
function loop(step: () => void): () => Promise<void> {
  let running = true;
  const done = (async () => {
    while (running) {
      step();
      await new Promise((resolve) => setTimeout(resolve, LOOP_MS));
    }
  })();
  return async () => {
    running = false;
    await done;
  };
}

export async function startStage(options: StageOptions): Promise<Stage> {
  const clock = new RunningClock();
  const world = await startWorld({
    nodes: options.nodes,
    clock,
    mode: options.mode,
    ec2Delays: { attachMs: options.attachMs, detachMs: options.detachMs },
    // The production waits (1 s, ×1.8), not the e2e tests' short ones: both sides poll EC2 as their code does.
    controller: {
      ec2Wait: { initialDelayMs: 1_000, factor: 1.8 },
      waits: { maxAttachWaitMs: 60_000, maxDetachWaitMs: 60_000, reserveMs: 1_000 },
    },
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  const recorded: Recorded = {
    vaCreated: new Map(),
    vaDeleting: new Map(),
    attachSent: new Map(),
    detachSent: new Map(),
    unmounted: new Map(),
  };
  world.ec2.onAction({
    before(action, params) {
      const volume = params.get('VolumeId');
      if (volume === undefined) return;
      if (action === 'AttachVolume' && !recorded.attachSent.has(volume)) recorded.attachSent.set(volume, clock.now());
      if (action === 'DetachVolume' && !recorded.detachSent.has(volume)) recorded.detachSent.set(volume, clock.now());
    },
  });
  const kubelets = new Kubelets(
    {
      list: (kind, namespace) => world.kube.list(kind, namespace) as unknown[],
      kubelet: {
        ...world.kube.kubelet,
        setVolumesInUse: (node, names) => {
          const before = new Set(
            (world.kube.get('Node', undefined, node) as { status?: { volumesInUse?: string[] } }).status?.volumesInUse,
          );
          world.kube.kubelet.setVolumesInUse(node, names);
          for (const name of before) if (!names.includes(name)) recorded.unmounted.set(name.split('^')[1] ?? name, clock.now());
        },
      },
    },
    world.ec2,
    { unmountMs: () => options.unmountMs, podLifecycle: true },
  );
  const kcm = options.mode === 'attacher' ? createKcm(recordingKube(world.kube, recorded, clock), clock) : undefined;
  const stopKcm = kcm === undefined ? () => Promise.resolve() : loop(() => kcm.step());
  const stopKubelets = loop(() => void kubelets.run());
  return {
    world,
    clock,
    kubelets,
    recorded,
    slowDown() {
      world.kube.faults.latency(options.rttMs);
      world.ec2.setLatency('*', options.rttMs);
      world.dynamo.setLatency(options.rttMs);
    },
    async stop() {
      await stopKcm();
      await stopKubelets();
      await world.stop();
    },
  };
}
