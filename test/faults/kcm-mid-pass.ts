/**
 * kcm does not wait for our passes (attacher mode): at a seeded API request of a step, kcm runs a
 * reconciler round and the kubelets act. So a VolumeAttachment can be deleted while our attach of
 * it is in flight (its pod deleted or rescheduled before the step), created after our read, or
 * recreated after we let go of it; an unmount can finish mid-pass.
 */
import type { Random } from '../../sandbox/generate/random.js';
import type { Kubelets } from '../../sandbox/kubelets.js';
import type { World } from './rig.js';

export function pickKcmRound(world: World, random: Random): number | undefined {
  if (world.mode !== 'attacher' || !random.chance(0.5)) return undefined;
  return random.between(1, 40);
}

/** Arms the round at request `atRequest`; returns what stops it, and a note of what it did. */
export function armKcmRound(
  world: World,
  kubelets: Kubelets,
  atRequest: number | undefined,
): { stop: () => void; note: () => string | undefined } {
  const kcm = world.kcm;
  if (atRequest === undefined || kcm === undefined) return { stop: () => undefined, note: () => undefined };
  let seen = 0;
  let note: string | undefined;
  const stop = world.kube.onRequest({
    before: () => {
      if (++seen !== atRequest) return;
      const report = kcm.step();
      kubelets.run();
      const did = [...report.created.map((n) => `created ${n}`), ...report.deleted.map((n) => `deleted ${n}`)];
      note = `kcm round at request ${seen}${did.length ? `: ${did.join(', ')}` : ''}`;
    },
  });
  return { stop, note: () => note };
}
