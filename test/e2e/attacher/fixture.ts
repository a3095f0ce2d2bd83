/** Each attacher-mode scenario: a fresh two-node world in attacher mode, its handlers, and the test playing kcm. */
import { afterEach, beforeEach } from 'vitest';
import { RunningClock } from '../../../sandbox/clock.js';
import { lambdaContext } from '../../../sandbox/events.js';
import { Kubelets } from '../../../sandbox/kubelets.js';
import { sidecarOnKube } from '../../../sandbox/lease-election.js';
import { createSidecar, type Sidecar } from '../../../sandbox/sidecar/sidecar.js';
import type { Handlers } from '../../../sandbox/local-stack.js';
import { startWorld, type World, type WorldOptions } from '../../../sandbox/world.js';
import { kcmPlayer, type KcmPlayer } from './kcm-player.js';

export interface AttacherWorld {
  world: World;
  handlers: Handlers;
  kcm: KcmPlayer;
  /** A full pass through the scheduled handler. */
  fullPass: () => Promise<unknown>;
}

/** `env`: controller settings on top of the stack's (e.g. POWERTOOLS_LOG_LEVEL to read the logs). */
export function useAttacherWorld(onStart: (started: AttacherWorld) => void, options: Pick<WorldOptions, 'env'> = {}): void {
  let started: AttacherWorld | undefined;
  beforeEach(async () => {
    const world = await startWorld({ nodes: 2, clock: new RunningClock(), mode: 'attacher', ...options });
    const handlers = world.handlers();
    started = { world, handlers, kcm: kcmPlayer(world), fullPass: () => handlers.scheduled({ pass: 'full' }, lambdaContext()) };
    onStart(started);
  });
  afterEach(async () => {
    await started?.kcm.close();
    await started?.world.stop();
    started = undefined;
  });
}

/** A world beside a running csi-attacher sidecar: kcm, the kubelets, the fence on, the sidecar's elector on the kube API. */
export interface SidecarWorld {
  world: World;
  clock: RunningClock;
  handlers: Handlers;
  kubelets: Kubelets;
  election: ReturnType<typeof sidecarOnKube>;
  sidecar: Sidecar;
  stop(): Promise<void>;
}

export async function startSidecarWorld(nodes: number, sidecarPod: string): Promise<SidecarWorld> {
  const clock = new RunningClock();
  const world = await startWorld({ nodes, clock, mode: 'attacher', simulateKcm: true, sidecar: true, env: { LEASE_FENCE: 'on' } });
  const election = sidecarOnKube(world.kube.kubeconfigPath, clock, sidecarPod);
  return {
    world,
    clock,
    handlers: world.handlers(),
    kubelets: new Kubelets(world.kube, world.ec2),
    election,
    sidecar: createSidecar({ kube: world.kube, ec2: world.ec2Client, elector: election.elector }),
    stop: async () => {
      await election.close();
      await world.stop();
    },
  };
}
