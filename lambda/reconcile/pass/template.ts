/**
 * The template every pass entry point follows, whatever its mode: a dry run gets a store that keeps
 * nothing; the pass is dated and named; the body loads, plans and acts; and the report sums up what
 * the body did, with the problems its reads found (malformed objects, corrupt items).
 */
import type { DesiredState } from '../../core/types.js';
import type { CorruptItem } from '../../ports/volume-store.js';
import type { PassContext } from './state.js';
import { dryRunStore } from './dry-run.js';
import type { Executed } from './plan-and-execute.js';
import { summarize } from './summary.js';
import type { PassOptions, PassReport, ReconcileDeps } from './types.js';

/** What the body is handed: the deps to use (a dry run's store keeps nothing), and the pass's name and start. */
export interface PassStart<D extends ReconcileDeps> {
  deps: D;
  dryRun: boolean;
  passId: string;
  startedAt: number;
  /**
   * The deps to act with and whether this is a dry run, once the pass is admitted. A body run with
   * `readsFirst` only reads through `deps` until then; for any other body it is `deps` and `dryRun`.
   */
  admitted: () => Promise<{ deps: D; dryRun: boolean }>;
}

/** What the body hands back for the report. */
export interface PassBody {
  kind: PassReport['kind'];
  ctx: PassContext;
  executed: Executed;
  clusterComplete: boolean;
  clusterError?: string;
  /** A covered pass: nothing was listed, but the watcher covers the cluster, so it may converge. */
  covered?: boolean;
  verified: boolean;
  seeded: boolean;
  /** Items the store could not read back (each becomes a problem of source `dynamodb`). */
  corrupt: readonly CorruptItem[];
  unwantedAttachments?: number;
  /** What the entry point adds to the summed-up report (its target, a takeover's progress, the shadow comparison). */
  extra?: Partial<PassReport>;
}

/** The problems a pass's reads found: the desired state's (Kubernetes) and the store's corrupt items. */
function problemsOf(desired: Pick<DesiredState, 'problems'>, corrupt: readonly CorruptItem[]): PassReport['problems'] {
  return [
    ...desired.problems.map((message) => ({ source: 'kubernetes' as const, message })),
    ...corrupt.map((item) => ({ source: 'dynamodb' as const, message: `item ${item.key}: ${item.problem}` })),
  ];
}

/**
 * `readsFirst`: the body reads while `options.admission` is still being decided and asks
 * `admitted()` before it writes anything; without it, the admission is awaited before the body.
 */
export async function runPass<D extends ReconcileDeps>(
  baseDeps: D,
  options: PassOptions,
  body: (start: PassStart<D>) => Promise<PassBody>,
  readsFirst = false,
): Promise<PassReport> {
  const startedAt = baseDeps.clock();
  const late = readsFirst ? options.admission : undefined;
  let dryRun = options.dryRun === true || (late === undefined && options.admission !== undefined && !(await options.admission));
  const depsOf = (dry: boolean): D => (dry ? { ...baseDeps, store: dryRunStore(baseDeps.store) } : baseDeps);
  const deps = depsOf(dryRun);
  const admitted = async () => {
    if (late !== undefined && !(await late)) dryRun = true;
    return dryRun ? { deps: depsOf(true), dryRun } : { deps, dryRun };
  };
  const start: PassStart<D> = { deps, dryRun, passId: options.passId ?? deps.newId(), startedAt, admitted };
  const done = await body(start);
  const report = summarize(
    done.ctx,
    {
      passId: start.passId,
      kind: done.kind,
      startedAt: start.startedAt,
      dryRun,
      clusterComplete: done.clusterComplete,
      ...(done.covered === true ? { covered: true } : {}),
      ...(done.clusterError === undefined ? {} : { clusterError: done.clusterError }),
      verified: done.verified,
      seeded: done.seeded,
      problems: problemsOf(done.ctx.desired, done.corrupt),
      ...(done.unwantedAttachments === undefined ? {} : { unwantedAttachments: done.unwantedAttachments }),
    },
    done.executed,
  );
  return { ...report, ...done.extra };
}
