/**
 * "After": the full pass a live watcher makes possible (a covered pass), measured in a fresh
 * controller process beside today's complete pass (bench/size.ts).
 */
import type { LocalStack } from '../sandbox/local-stack.js';
import { startPassChild, type PassChild } from './child-runner.js';

/**
 * A live watcher's facts, as a watcher leaves them in the store: a holder that watches and has just
 * said so, and a checkpoint for every kind either mode follows. The bench measures the pass a
 * watcher makes possible; the watcher's own cost is bench/watcher-size.ts's.
 */
async function coverWithWatcher(stage: LocalStack): Promise<void> {
  const watchers = stage.controller.ports.watchers;
  const now = stage.clock.now();
  const lease = await watchers.readLease();
  const holder = { startedAt: now - 60_000, endsAt: now + 840_000, heartbeatAt: now, watching: true };
  await watchers.writeLease({ holders: { bench: holder }, version: lease.version });
  for (const kind of ['pods', 'nodes', 'volumeattachments'] as const)
    await watchers.saveCheckpoint(kind, { resourceVersion: '1', savedAt: now });
  // A complete pass on record, as a covered deployment has one: the run's own may have been cut at its cap.
  const state = await stage.controller.ports.store.getControllerState();
  if (state.completeAt === undefined) await stage.controller.ports.store.putControllerState({ ...state, completeAt: now - 61_000 });
}

/** "After": two covered passes at a sync, a minute apart, in a fresh controller process (its peak memory is its own). */
export async function measureCovered<F>(
  stage: LocalStack,
  setup: { env: Record<string, string>; memoryMb: number; rttMs: number },
  measure: (child: PassChild, rttMs: number) => Promise<F>,
): Promise<{ coveredAtSync: F; coveredAtSyncNoRtt: F }> {
  const child = await startPassChild(setup.env, setup.memoryMb);
  try {
    stage.clock.advance(61_000);
    await coverWithWatcher(stage);
    const coveredAtSync = await measure(child, setup.rttMs);
    stage.clock.advance(61_000);
    await coverWithWatcher(stage);
    const coveredAtSyncNoRtt = await measure(child, 0);
    return { coveredAtSync, coveredAtSyncNoRtt };
  } finally {
    child.stop();
  }
}
