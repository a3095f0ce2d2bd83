/**
 * A cluster big enough for the mass-detach guard (more than its 10 attachments): every volume
 * attached and mounted, then every pod that uses an RWO volume deleted at once (a namespace
 * deleted, a bad deploy scaling everything to zero, or a read that lost them). Two minutes later
 * most unmounts are done and one full pass finds a dozen detaches to make: the guard must hold
 * back all but its fraction (sandbox/oracle/mass-detach.ts judges it).
 */
import type { Change } from '../cluster.js';
import { CALM_STEP, type Theme } from './theme.js';

export const MASS_DELETION: Theme = {
  name: 'mass-deletion',
  shape: { nodes: [4, 4], volumes: [13, 16], podChance: 1 },
  step(step, { cluster }) {
    switch (step) {
      case 1:
      case 2:
        return CALM_STEP;
      case 3: {
        const doomed = cluster.pods.filter((p) => p.claims[0] !== 'shared-block');
        return { ...CALM_STEP, changes: doomed.map((p): Change => ({ kind: 'delete', pod: p.name })), advance: 120_000 };
      }
      case 4:
        return CALM_STEP;
      default:
        return undefined;
    }
  },
};
