/**
 * A verification (and, after a takeover, the seeding) is remembered in the controller state, so the
 * next pass of any invocation knows when the next one is due: a complete pass's as `completeAt`
 * too, a covered pass's with the next rolling slice.
 */
import type { ControllerState } from '../../ports/volume-store.js';
import type { PassState } from './state.js';

/** Another pass may have written the state meanwhile: its write is as good as ours. */
export async function rememberVerification(
  ctx: Pick<PassState, 'deps'>,
  state: ControllerState,
  done: { seeded: boolean; at: number; complete?: boolean; slice?: number },
): Promise<void> {
  const { takeover: _done, ...rest } = state;
  const base: ControllerState = done.seeded ? { ...rest, seededAt: done.at } : state;
  const next: ControllerState = {
    ...base,
    lastVerifiedAt: done.at,
    // A complete pass restarts the safety period; a covered one moves the rolling slice on.
    ...(done.complete === true ? { completeAt: done.at } : {}),
    ...(done.slice === undefined ? {} : { slice: done.slice }),
  };
  const written = await ctx.deps.store.putControllerState(next);
  if (!written.ok) ctx.deps.log.info("controller state changed meanwhile; keeping the other pass's");
}
