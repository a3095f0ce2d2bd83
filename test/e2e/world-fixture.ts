/**
 * The e2e setup every scenario shares: a fresh world per test (two nodes), its EC2 and the
 * controller on one clock that can jump, the real handlers wired to that controller, and all of
 * it stopped after the test.
 */
import { afterEach, beforeEach } from 'vitest';
import type { Controller, ControllerOverrides } from '../../lambda/composition.js';
import { startWorld, type World } from '../../sandbox/world.js';
import { wireHandlers } from '../support/lambda.js';
import { JumpClock } from './jump-clock.js';

export interface Started {
  world: World;
  controller: Controller;
  clock: JumpClock;
}

export interface WorldSetup {
  /** Extra environment for the controller's configuration. */
  env?: Record<string, string>;
  /** Controller overrides beyond the shared clock (e.g. shorter waits). */
  overrides?: ControllerOverrides;
}

export function useWorld(onStart: (started: Started) => void, setup: WorldSetup = {}): void {
  let started: Started | undefined;
  beforeEach(async () => {
    const clock = new JumpClock();
    const world = await startWorld({ nodes: 2, ec2Clock: clock });
    const controller = wireHandlers(world, setup.env, { clock: clock.now, ...setup.overrides });
    started = { world, controller, clock };
    onStart(started);
  });
  afterEach(async () => {
    await started?.controller.close();
    await started?.world.stop();
    started = undefined;
  });
}
