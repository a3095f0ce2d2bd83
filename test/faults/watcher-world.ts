/**
 * A small world for the watcher fault cases, in either mode: two nodes on a running clock, the
 * mode's live oracle judging every EC2 call and VolumeAttachment write, and the cluster's side of
 * a change (attacher mode: kcm creates the VolumeAttachment; controller mode: a pod is bound), and
 * the scheduled full pass beside the watchers.
 */
import { operatingMode } from '../../lambda/reconcile/operating-mode.js';
import type { KubeNode, KubeVolumeAttachment } from '../../lambda/core/kube.js';
import type { PassReport } from '../../lambda/reconcile/pass/types.js';
import { RunningClock } from '../../sandbox/clock.js';
import { AttacherLiveOracle } from '../../sandbox/oracle/attacher/live.js';
import { LiveOracle } from '../../sandbox/oracle/live.js';
import { startWorld, type World, type WorldVolume } from '../../sandbox/world.js';
import { kcmPlayer } from '../e2e/attacher/kcm-player.js';
import { eventually } from '../e2e/watcher/support.js';
import { MAX_WAIT_FOR_UNMOUNT_MS } from './rig.js';

export interface WatcherWorld {
  world: World;
  /** Resolves once a watcher holds every watch its mode needs. */
  watching(): Promise<void>;
  /** The cluster asks for `volume` on `node`. */
  change(volume: WorldVolume, node: string): Promise<void>;
  /** Attached and reported as the mode reports it. */
  attached(volume: WorldVolume, node: string): boolean;
  calls(): Record<string, number>;
  /** Resolves once the store holds a checkpoint for every kind the mode watches. */
  checkpointed(): Promise<void>;
  /** One scheduled full pass, in its own execution environment. */
  fullPass(): Promise<PassReport>;
  /** The live oracle's violations so far. */
  verdict(): unknown[];
  stop(): Promise<void>;
}

export async function watcherWorld(mode: 'controller' | 'attacher'): Promise<WatcherWorld> {
  const world = await startWorld({ nodes: 2, clock: new RunningClock(), mode });
  const kcm = mode === 'attacher' ? kcmPlayer(world) : undefined;
  const oracle =
    mode === 'attacher'
      ? new AttacherLiveOracle(world.ec2, world.kube)
      : new LiveOracle(world.ec2, world.kube, { maxWaitForUnmountMs: MAX_WAIT_FOR_UNMOUNT_MS });
  // Every stream the mode's watcher opens: its watched kinds and its caches (attacher mode's PVs, CSINodes, Nodes).
  const { watch } = operatingMode(mode);
  const watches = watch.kinds.length + (watch.cached ?? []).length;
  const vaOf = (volume: WorldVolume, node: string) =>
    (world.kube.list('VolumeAttachment') as KubeVolumeAttachment[]).find(
      (va) => va.spec.source.persistentVolumeName === volume.pvName && va.spec.nodeName === node,
    );
  return {
    world,
    watching: () => eventually('the watcher watches', () => world.kube.requests().filter((r) => r.verb === 'watch').length >= watches),
    change: async (volume, node) => {
      if (kcm === undefined) return world.addPod(`pod-${volume.pvName}`, volume, node, 'Pending');
      await kcm.attach(volume, node);
    },
    attached: (volume, node) => {
      if (kcm !== undefined) return vaOf(volume, node)?.status?.attached === true;
      const status = (world.kube.get('Node', undefined, node) as KubeNode).status;
      return (status?.volumesAttached ?? []).some((v) => v.name === volume.uniqueName);
    },
    checkpointed: async () => {
      const kinds = mode === 'attacher' ? (['volumeattachments'] as const) : (['pods', 'nodes'] as const);
      for (let tries = 0; tries < 500; tries++) {
        const saved = await world.invocation().ports.watchers.readCheckpoints(kinds);
        if (kinds.every((kind) => saved[kind] !== undefined)) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error('no checkpoint saved');
    },
    fullPass: () => world.invocation().fullPass({ deadline: world.clock.now() + 60_000 }),
    calls: () => world.ec2.counters().calls,
    verdict: () => oracle.violations,
    stop: async () => {
      oracle.stop();
      await kcm?.close();
      await world.stop();
    },
  };
}
