/**
 * The scenario themes (theme.ts), one line each. A controller-mode seed plays
 * `THEMES[seed % THEMES.length]`, an attacher-mode seed `ATTACHER_THEMES[seed % ATTACHER_THEMES.length]`.
 */
import type { Mode } from '../rig.js';
import { API_BLIP_AT_UNREPORT } from './api-blip-at-unreport.js';
import { DEAD_NODE_AT_TIMEOUT } from './dead-node-timeout.js';
import { EVERY_INSTANCE_STATE } from './every-instance-state.js';
import { HANDED_OVER_DELETING } from './handed-over-deleting.js';
import { LEASE_TAKEN_MID_PASS } from './lease-taken-mid-pass.js';
import { LIST_FAILS_AFTER_ATTACH } from './list-fails-after-attach.js';
import { LOST_ATTACH_UNDER_LAG } from './lost-attach-under-lag.js';
import { MASS_DELETION } from './mass-deletion.js';
import { OPERATOR_DETACH } from './operator-detach.js';
import { POD_MOVES_BETWEEN_PASSES } from './pod-moves-between-passes.js';
import { POD_REPLACED_MID_PASS } from './pod-replaced-mid-pass.js';
import { SAME_INSTANT_CLAIMS } from './same-instant-claims.js';
import { STOPPING_HANGS } from './stopping-hangs.js';
import { WAIT_ENDS_MID_PASS } from './wait-ends-mid-pass.js';
import { PLAIN, type Theme } from './theme.js';

// One theme a line, so that themes added side by side merge line by line.
// prettier-ignore
export const THEMES: Theme[] = [
  PLAIN,
  DEAD_NODE_AT_TIMEOUT,
  API_BLIP_AT_UNREPORT,
  MASS_DELETION,
  POD_REPLACED_MID_PASS,
  STOPPING_HANGS,
  LOST_ATTACH_UNDER_LAG,
  POD_MOVES_BETWEEN_PASSES,
  OPERATOR_DETACH,
  LIST_FAILS_AFTER_ATTACH,
  SAME_INSTANT_CLAIMS,
  EVERY_INSTANCE_STATE,
  WAIT_ENDS_MID_PASS,
];

// prettier-ignore
export const ATTACHER_THEMES: Theme[] = [
  PLAIN,
  LEASE_TAKEN_MID_PASS,
  HANDED_OVER_DELETING,
];

export function themeOf(seed: number, mode: Mode): Theme {
  const themes = mode === 'attacher' ? ATTACHER_THEMES : THEMES;
  return themes[seed % themes.length] ?? PLAIN;
}
