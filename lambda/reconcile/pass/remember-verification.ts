/**
 * A verification (and, after a takeover, the seeding) is remembered in the controller state, so the
 * next pass of any invocation knows when the next one is due.
 */
import type { ControllerState } from '../../ports/volume-store.js';
import type { PassState } from './state.js';

/** Another pass may have written the state meanwhile: its write is as good as ours. */
export async function rememberVerification(
  ctx: Pick<PassState, 'deps'>,
  state: ControllerState,
  done: { seeded: boolean; at: number },
): Promise<void> {
  const { takeover: _done, ...rest } = state;
  const next: ControllerState = done.seeded
    ? { ...rest, lastVerifiedAt: done.at, seededAt: done.at }
    : { ...state, lastVerifiedAt: done.at };
  const written = await ctx.deps.store.putControllerState(next);
  if (!written.ok) ctx.deps.log.info("controller state changed meanwhile; keeping the other pass's");
}
