/**
 * Many execution environments claim the same operation at one instant: a burst of events for one
 * pod (its scheduling, its volume, its node, a scheduled full pass) starts five cold invocations
 * together, each reading the store before any has written. A fresh RWO claim is scheduled on one
 * node (five claim its attach), its pod moves to another node (five claim the detach, then five the
 * new attach), then it is deleted (five claim the last detach); one of each burst may be killed
 * mid-way, leaving its claim behind. Only the conditional writes of the lock keep one operation
 * per pair and one holder per exclusive volume (invariants 1, 4, 6).
 */
import type { PassSpec } from '../pass-spec.js';
import { freeVolumes, SPARE_CLAIMS } from './exclusive.js';
import {
  busiestNodes,
  CALM_STEP,
  FULL_PASS,
  killOne,
  onSettledCluster,
  type ScriptedStep,
  type Theme,
  type ThemeContext,
} from './theme.js';

interface Claimed {
  claim: string;
  volumeId: string;
  from: string;
  to: string;
}

/** Two minutes: most unmounts finish, so the next burst finds the volume unneeded and unmounted. */
const UNMOUNTED_MS = 120_000;

function herd(ctx: ThemeContext, passes: PassSpec[], advance: number): ScriptedStep {
  return { ...CALM_STEP, passes: killOne(passes, ctx.random), advance };
}

function schedule(ctx: ThemeContext<{ claimed?: Claimed }>): ScriptedStep | undefined {
  const free = freeVolumes(ctx.world, ctx.cluster);
  const [from, to] = busiestNodes(ctx.cluster);
  if (free.length === 0 || from === undefined || to === undefined) return undefined;
  const volume = ctx.random.pick(free);
  ctx.state.claimed = { claim: volume.claim.name, volumeId: volume.volumeId, from: from.name, to: to.name };
  const passes: PassSpec[] = [
    { target: { kind: 'volume', volumeId: volume.volumeId } },
    { target: { kind: 'volume', volumeId: volume.volumeId } },
    { target: { kind: 'node', name: from.name } },
    { target: { kind: 'instance', instanceId: from.instanceId } },
    FULL_PASS,
  ];
  // No time passes: the attach is still in flight when the next burst comes.
  return { ...herd(ctx, passes, 0), changes: [{ kind: 'add', claim: volume.claim.name, node: from.name }] };
}

function sameInstant(step: number, ctx: ThemeContext<{ claimed?: Claimed }>): ScriptedStep | undefined {
  if (step === 1) return schedule(ctx);
  const claimed = ctx.state.claimed;
  const pod = ctx.cluster.pods.find((p) => p.claims[0] === claimed?.claim);
  if (claimed === undefined || pod === undefined) return undefined;
  const ofPod: PassSpec = { target: { kind: 'pod', namespace: 'default', name: pod.name } };
  const ofVolume: PassSpec = { target: { kind: 'volume', volumeId: claimed.volumeId } };
  switch (step) {
    case 2:
      return {
        ...herd(ctx, [ofPod, ofPod, ofPod, ofVolume, FULL_PASS], UNMOUNTED_MS),
        changes: [{ kind: 'move', pod: pod.name, to: claimed.to }],
      };
    case 3:
      return herd(ctx, [ofPod, ofPod, ofVolume, FULL_PASS, FULL_PASS], 15_000);
    case 4:
      return {
        ...herd(ctx, [ofVolume, ofVolume, ofVolume, FULL_PASS, FULL_PASS], UNMOUNTED_MS),
        changes: [{ kind: 'delete', pod: pod.name }],
      };
    default:
      return undefined;
  }
}

export const SAME_INSTANT_CLAIMS: Theme<{ claimed?: Claimed }> = {
  name: 'same-instant-claims',
  shape: SPARE_CLAIMS,
  state: () => ({}),
  step: onSettledCluster(sameInstant),
};
