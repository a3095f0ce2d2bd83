/**
 * The e2e setup every scenario shares: a fresh world per test (two nodes) on one running clock
 * that can jump, the real handlers wired to the world's controller by the local stack, and all of
 * it stopped after the test.
 */
import { afterEach, beforeEach } from 'vitest';
import type { Controller } from '../../lambda/composition.js';
import { RunningClock } from '../../sandbox/clock.js';
import type { Handlers } from '../../sandbox/local-stack.js';
import { startWorld, type WorldOptions, type World } from '../../sandbox/world.js';

export interface Started {
  world: World;
  controller: Controller;
  clock: RunningClock;
  handlers: Handlers;
}

export function useWorld(onStart: (started: Started) => void, setup: Omit<WorldOptions, 'clock' | 'nodes'> = {}): void {
  let started: Started | undefined;
  beforeEach(async () => {
    const clock = new RunningClock();
    const world = await startWorld({ nodes: 2, clock, ...setup });
    started = { world, controller: world.controller, clock, handlers: world.handlers() };
    onStart(started);
  });
  afterEach(async () => {
    await started?.world.stop();
    started = undefined;
  });
}
