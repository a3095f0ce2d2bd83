/** Each attacher-mode scenario: a fresh two-node world in attacher mode, its handlers, and the test playing kcm. */
import { afterEach, beforeEach } from 'vitest';
import { RunningClock } from '../../../sandbox/clock.js';
import { lambdaContext } from '../../../sandbox/events.js';
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
