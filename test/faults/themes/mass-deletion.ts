/**
 * A cluster big enough for the mass-detach guard to bind twice (more than twice its 10
 * attachments): every volume attached and mounted, then every pod that uses an RWO volume deleted
 * at once (a namespace deleted, a bad deploy scaling everything to zero, or a read that lost them).
 * Two minutes later most unmounts are done: two full passes overlap (a slow pass and the next
 * tick), then another comes 15 s later and another after it, all in one mass-detach window. Each
 * pass's own guard allows half of what it counts, and the later ones count fewer; the window in the
 * store must hold them all together to one pass's half (sandbox/oracle/mass-detach.ts judges each
 * step and the window across them).
 */
import type { Change } from '../cluster.js';
import { CALM_STEP, FULL_PASS, onSettledCluster, type Theme } from './theme.js';

export const MASS_DELETION: Theme = {
  name: 'mass-deletion',
  shape: { nodes: [6, 6], volumes: [28, 32], podChance: 1 },
  step: onSettledCluster((step, { cluster }) => {
    if (step === 1) {
      const doomed = cluster.pods.filter((p) => p.claims[0] !== 'shared-block');
      return { ...CALM_STEP, changes: doomed.map((p): Change => ({ kind: 'delete', pod: p.name })), advance: 120_000 };
    }
    if (step === 2) return { ...CALM_STEP, passes: [FULL_PASS, FULL_PASS] };
    return step <= 4 ? CALM_STEP : undefined;
  }),
};
