/**
 * Taking over from kube-controller-manager: on the first full passes (no `seededAt`), every
 * attachment the cluster claims (core/takeover.ts) is seeded and settled against EC2 in one
 * compare-and-swap per volume, a step of up to 500 volumes at a time: one DescribeVolumes, then the
 * step's writes side by side. A finished step is written down in the controller state, so an
 * invocation that reaches its deadline leaves the rest to the next one, which asks EC2 about no
 * volume twice. A step once started is finished: it is the unit of work the deadline is checked against.
 * One pass at a time holds the takeover (a lease in the controller state, to its invocation's end).
 */
import pLimit from 'p-limit';
import type { ClusterSnapshot } from '../../core/kube.js';
import { takeoverSteps, takeoverSeeds, takeOverVolume, type TakeoverView } from '../../core/takeover.js';
import { isEmpty, type SeedInput } from '../../core/transitions.js';
import type { VolumeId, VolumeObservation } from '../../core/types.js';
import { adoptionIndex } from '../../core/adoption.js';
import type { ControllerState, TakeoverProgress } from '../../ports/volume-store.js';
import type { PassContext } from '../pass/state.js';
import { writeRecord } from '../pass/records.js';
import { WRITE_CONCURRENCY } from '../pass/verify.js';

export interface Takeover {
  /** Claimed volumes (all of them, earlier invocations' included): EC2 has been asked about each once. */
  claimed: Set<VolumeId>;
  /** Claimed volumes this invocation took over, and how many are left for the next. */
  done: number;
  left: number;
  /** The controller state as last written (its version moves with every finished step). */
  state: ControllerState;
  /** When the takeover's first step started. */
  startedAt: number;
}

/**
 * Takes over the claimed volumes not yet taken over, step by step while the deadline allows. Only
 * the pass holding the takeover works on it: one started meanwhile (the next schedule tick) leaves
 * it alone rather than asking EC2 about the same volumes again.
 */
export async function takeOver(ctx: PassContext, snapshot: ClusterSnapshot, state: ControllerState, passId: string): Promise<Takeover> {
  const byVolume = takeoverSeeds(ctx.desired.nodes, snapshot);
  const steps = takeoverSteps(byVolume.keys(), state.takeover?.through);
  const startedAt = state.takeover?.startedAt ?? ctx.deps.clock();
  const left = steps.reduce((n, step) => n + step.length, 0);
  const result: Takeover = { claimed: new Set(byVolume.keys()), done: 0, left, state, startedAt };
  if (steps.length === 0) return result;
  const held = await holdTakeover(ctx, state, passId, startedAt);
  if (held === undefined) {
    ctx.deps.log.info('another pass holds the takeover; leaving it to that pass', { left });
    return result;
  }
  result.state = held;
  const adoption = adoptionIndex(ctx.desired);
  const view: TakeoverView = { nodes: ctx.desired.nodes, adoptable: (volumeId) => adoption.adoptable(volumeId) };
  const progress = { total: byVolume.size, done: byVolume.size - left };
  let slowestMs = 0;
  for (const step of steps) {
    if (!ctx.deadline.canStart(slowestMs)) break;
    const began = ctx.deps.clock();
    if (!(await takeOverStep(ctx, step, byVolume, view, progress))) break;
    const moved = await writeTakeover(ctx, result.state, {
      ...result.state.takeover,
      startedAt,
      through: step[step.length - 1],
    });
    if (moved === undefined) break;
    result.state = moved;
    result.done += step.length;
    result.left -= step.length;
    slowestMs = Math.max(slowestMs, ctx.deps.clock() - began);
  }
  // Let the next pass go on at once rather than when this invocation's lease would have ended.
  const { holder: _released, ...released } = result.state.takeover ?? { startedAt };
  result.state = (await writeTakeover(ctx, result.state, released)) ?? result.state;
  return result;
}

/** One step: EC2's word on its volumes, then one write per volume. False when EC2 could not be asked. */
async function takeOverStep(
  ctx: PassContext,
  step: VolumeId[],
  byVolume: Map<VolumeId, SeedInput[]>,
  view: TakeoverView,
  progress: { total: number; done: number },
): Promise<boolean> {
  let observed: Map<VolumeId, VolumeObservation>;
  try {
    observed = await ctx.deps.blockStorage.describeVolumes(step);
  } catch (error) {
    ctx.deps.log.warn('takeover: EC2 could not be asked; the next pass continues from here', { error: String(error) });
    return false;
  }
  const volumes = (ctx.observations.volumes ??= new Map());
  for (const [volumeId, observation] of observed) volumes.set(volumeId, observation);
  const limit = pLimit(WRITE_CONCURRENCY);
  await Promise.all(
    step.map((volumeId) =>
      limit(async () => {
        await takeOverOne(ctx, volumeId, byVolume.get(volumeId) ?? [], observed.get(volumeId), view);
        ctx.deps.progress?.('seeding', ++progress.done, progress.total);
      }),
    ),
  );
  return true;
}

async function takeOverOne(
  ctx: PassContext,
  volumeId: VolumeId,
  inputs: SeedInput[],
  observation: VolumeObservation | undefined,
  view: TakeoverView,
): Promise<void> {
  const now = ctx.deps.clock();
  const current = ctx.actual.get(volumeId);
  const first = takeOverVolume(current, inputs, observation, now, view);
  // Every claim refuted by EC2 and nothing on record: there is nothing to write down.
  if (first.ok && current === undefined && isEmpty(first.record)) return;
  const written = await writeRecord(ctx.deps.store, ctx.actual, volumeId, current, (record) =>
    takeOverVolume(record, inputs, observation, now, view),
  );
  if (!written.ok) ctx.deps.log.warn('could not take over volume', { volumeId, reason: written.reason });
}

/** Takes the takeover unless another pass holds it, until this invocation's end (its lease). */
async function holdTakeover(ctx: PassContext, state: ControllerState, passId: string, startedAt: number) {
  const now = ctx.deps.clock();
  const holder = state.takeover?.holder;
  if (holder !== undefined && holder.passId !== passId && holder.until > now) return undefined;
  const until = now + ctx.deadline.leaseMs(ctx.deps.settings.plan);
  return writeTakeover(ctx, state, { ...state.takeover, startedAt, holder: { passId, until } });
}

/** The controller state with the takeover's progress, compare-and-swapped; undefined when it changed meanwhile. */
async function writeTakeover(ctx: PassContext, state: ControllerState, takeover: TakeoverProgress): Promise<ControllerState | undefined> {
  const next: ControllerState = { ...state, takeover };
  const written = await ctx.deps.store.putControllerState(next);
  if (!written.ok) ctx.deps.log.warn('the takeover changed hands meanwhile; this pass stops taking over');
  return written.ok ? { ...next, version: state.version + 1 } : undefined;
}
