/**
 * A complete pass's report, in either mode: the cluster was read (or its read failed, said in
 * `clusterError`), why no watcher covered it, and what the mode adds (a takeover's progress, the
 * shadow comparison). The covered pass's counterpart is covered.ts `coveredBody`.
 */
import type { CorruptItem } from '../../ports/volume-store.js';
import type { ClusterRead } from './cluster-read.js';
import type { Executed } from './plan-and-execute.js';
import type { PassContext } from './state.js';
import type { PassBody } from './template.js';

export interface CompleteSteps {
  executed: Executed;
  cluster: Pick<ClusterRead<unknown>, 'complete' | 'error'>;
  verified: boolean;
  seeded: boolean;
  corrupt: readonly CorruptItem[];
  unwanted: number | undefined;
  /** Why the pass was complete rather than covered (coverage.ts). */
  why: string;
}

export function completeBody(ctx: PassContext, steps: CompleteSteps, extra: PassBody['extra'] = {}): PassBody {
  const { executed, cluster, verified, seeded, corrupt, unwanted, why } = steps;
  return {
    kind: 'full',
    ctx,
    executed,
    clusterComplete: cluster.complete,
    ...(cluster.error === undefined ? {} : { clusterError: cluster.error }),
    verified,
    seeded,
    corrupt,
    ...(unwanted === undefined ? {} : { unwantedAttachments: unwanted }),
    extra: { coverage: { covered: false, why }, ...extra },
  };
}
