/** How seeds pick their scenario theme, and how a theme's own steps follow the settling ones. */
import { describe, expect, it } from 'vitest';
import { THEMES, themeOf } from './themes/index.js';
import { OPERATOR_DETACH } from './themes/operator-detach.js';
import { CALM_STEP, onSettledCluster, PLAIN, type ScriptedStep, type ThemeContext } from './themes/theme.js';

describe('themeOf', () => {
  it('gives controller-mode seeds every theme in turn, the plain world among them', () => {
    const names = THEMES.map((_, seed) => themeOf(seed, 'controller').name);
    expect(names).toEqual(THEMES.map((t) => t.name));
    expect(names).toContain(PLAIN.name);
    expect(themeOf(THEMES.length + 1, 'controller')).toBe(themeOf(1, 'controller'));
  });

  it('leaves attacher-mode seeds in the plain world', () => {
    expect(THEMES.map((_, seed) => themeOf(seed, 'attacher').name)).toEqual(THEMES.map(() => PLAIN.name));
  });
});

describe('onSettledCluster', () => {
  it('plays two calm steps, then asks the theme for its own steps from 1', () => {
    const own: ScriptedStep = { advance: 1 };
    const step = onSettledCluster((n) => (n === 1 ? own : undefined));
    const ctx = {} as ThemeContext;
    expect([1, 2, 3, 4].map((n) => step(n, ctx))).toEqual([CALM_STEP, CALM_STEP, own, undefined]);
  });
});

describe('theme state', () => {
  it('is made afresh for each run, so one run never sees another run’s memory', () => {
    const made = [OPERATOR_DETACH.state?.(), OPERATOR_DETACH.state?.()];
    expect(made[0]).toEqual({});
    expect(made[0]).not.toBe(made[1]);
  });
});
