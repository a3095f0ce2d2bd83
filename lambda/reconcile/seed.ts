/**
 * Taking over from kube-controller-manager: on the first full passes (no `seededAt`), every
 * attachment the cluster claims (core/takeover.ts) is seeded and settled against EC2 in one
 * compare-and-swap per volume, a step of up to 500 volumes at a time: one DescribeVolumes, then the
 * step's writes side by side. A finished step is written down in the controller state, so an
 * invocation that reaches its deadline leaves the rest to the next one, which asks EC2 about no
 * volume twice. A step once started is finished: it is the unit of work the deadline is checked against.
 */
import pLimit from 'p-limit';
import type { ClusterSnapshot } from '../core/kube.js';
import { takeoverSteps, takeoverSeeds, takeOverVolume, type TakeoverView } from '../core/takeover.js';
import { isEmpty, type SeedInput } from '../core/transitions.js';
import type { VolumeId, VolumeObservation } from '../core/types.js';
import { nodesByInstance } from '../core/verification.js';
import type { ControllerState } from '../ports/volume-store.js';
import type { PassContext } from './context.js';
import { writeRecord } from './records.js';
import { WRITE_CONCURRENCY } from './verify.js';

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

/** Takes over the claimed volumes not yet taken over, step by step while the deadline allows. */
export async function takeOver(ctx: PassContext, snapshot: ClusterSnapshot, state: ControllerState): Promise<Takeover> {
  const byVolume = takeoverSeeds(ctx.desired.nodes, snapshot);
  const steps = takeoverSteps(byVolume.keys(), state.takeover?.through);
  const startedAt = state.takeover?.startedAt ?? ctx.deps.clock();
  const view: TakeoverView = { nodes: ctx.desired.nodes, byInstance: nodesByInstance(ctx.desired) };
  const left = steps.reduce((n, step) => n + step.length, 0);
  const progress = { total: byVolume.size, done: byVolume.size - left };
  const result: Takeover = { claimed: new Set(byVolume.keys()), done: 0, left, state, startedAt };
  let slowestMs = 0;
  for (const step of steps) {
    if (!ctx.deadline.canStart(slowestMs)) break;
    const began = ctx.deps.clock();
    if (!(await takeOverStep(ctx, step, byVolume, view, progress))) break;
    result.state = await recordProgress(ctx, result.state, { startedAt, through: step[step.length - 1] as VolumeId });
    result.done += step.length;
    result.left -= step.length;
    slowestMs = Math.max(slowestMs, ctx.deps.clock() - began);
  }
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

/**
 * Moves the takeover's progress on. Another pass taking over at the same time may have written
 * the state meanwhile: the further progress is kept; a lost write only means a step done again.
 */
async function recordProgress(ctx: PassContext, state: ControllerState, progress: { startedAt: number; through: VolumeId }) {
  const store = ctx.deps.store;
  for (let attempt = 0; attempt < 2; attempt++) {
    const next: ControllerState = { ...state, takeover: progress };
    if ((await store.putControllerState(next)).ok) return { ...next, version: state.version + 1 };
    state = await store.getControllerState();
    if (state.seededAt !== undefined || (state.takeover !== undefined && state.takeover.through >= progress.through)) return state;
    progress = { ...progress, startedAt: Math.min(progress.startedAt, state.takeover?.startedAt ?? progress.startedAt) };
  }
  return state;
}
