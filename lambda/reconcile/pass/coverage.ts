/**
 * A full pass's first step, in either mode: the controller state and the watchers' facts, read
 * together, and the core's word on whether a live watcher covers the cluster (core/coverage.ts).
 * A dry run is always complete (it is the picture an operator or the shadow compares, whole), and
 * so is a pass its caller asks to be.
 */
import { coverage, type Coverage } from '../../core/coverage.js';
import { WATCHER_LEASE_RULES, type WatchedKind } from '../../core/watch.js';
import type { ControllerState } from '../../ports/volume-store.js';
import type { PassOptions, ReconcileDeps } from './types.js';

export interface Decided {
  coverage: Coverage;
  /** The controller state as read for the decision (none when the caller asked for a complete pass). */
  state?: ControllerState;
}

/** `whole`: the caller asks for a complete pass (a dry run, the CLI's pass, a cluster event's fallback). */
export async function decideCoverage(
  deps: ReconcileDeps,
  kinds: readonly WatchedKind[],
  now: number,
  whole: string | undefined,
): Promise<Decided> {
  // Asked to be complete: nothing to decide, and the Scan brings the controller state along.
  if (whole !== undefined) return { coverage: { covered: false, why: whole } };
  const watchers = deps.watchers;
  const [state, facts] = await Promise.all([
    deps.store.getControllerState(),
    watchers === undefined
      ? undefined
      : watchers.readFacts(kinds).catch((error: unknown) => {
          deps.log.warn("could not read the watchers' facts; this pass is complete", { error: String(error) });
          return undefined;
        }),
  ]);
  const decided = coverage({
    facts,
    completeAt: state.completeAt,
    kinds,
    now,
    settings: deps.settings.coverage,
    rules: WATCHER_LEASE_RULES,
  });
  return { state, coverage: decided };
}

/** Why the caller's options ask for a complete pass, if they do. */
export function wholeAsked(options: PassOptions): string | undefined {
  if (options.dryRun === true) return 'a dry run reads the whole cluster';
  return options.complete === true ? 'asked for a complete pass' : undefined;
}
