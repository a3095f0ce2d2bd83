/**
 * The scenario themes (theme.ts), one line each. A controller-mode seed plays
 * `THEMES[seed % THEMES.length]`; attacher-mode seeds play the plain world.
 */
import type { Mode } from '../rig.js';
import { API_BLIP_AT_UNREPORT } from './api-blip-at-unreport.js';
import { DEAD_NODE_AT_TIMEOUT } from './dead-node-timeout.js';
import { MASS_DELETION } from './mass-deletion.js';
import { PLAIN, type Theme } from './theme.js';

export const THEMES: Theme[] = [PLAIN, DEAD_NODE_AT_TIMEOUT, API_BLIP_AT_UNREPORT, MASS_DELETION];

export function themeOf(seed: number, mode: Mode): Theme {
  return mode === 'attacher' ? PLAIN : (THEMES[seed % THEMES.length] ?? PLAIN);
}
