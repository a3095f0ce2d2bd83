/** The README's settings table is the settings table of the code (lambda/settings.ts), row for row. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { replaceSettingsSection, settingsSection } from '../../lambda/cli/readme-sections.js';
import { SETTINGS, settingsTable } from '../../lambda/settings.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README settings table', () => {
  it('is the rendered settings table (run `npm run docs:settings` after changing a setting)', () => {
    expect(settingsSection(readme)).toBe(settingsTable());
  });

  it('has one row per setting, with its default', () => {
    for (const setting of SETTINGS) {
      const row = settingsTable()
        .split('\n')
        .find((line) => line.startsWith(`| \`${setting.name}\` |`));
      expect(row).toContain(setting.default === undefined ? '|' : `\`${setting.default}\``);
    }
  });

  it('refuses a README without the markers', () => {
    expect(() => replaceSettingsSection('# no table')).toThrow('markers');
  });
});
