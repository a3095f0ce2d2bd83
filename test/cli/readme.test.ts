/** The README's settings table is the settings table of the code (lambda/settings.ts), row for row. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { replaceSettingsSection, settingsSection } from '../../lambda/cli/readme-sections.js';
import type { z } from 'zod';
import { ENV_SCHEMA, SETTINGS, settingsTable } from '../../lambda/settings.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README settings table', () => {
  it('is the rendered settings table (run `npm run docs:settings` after changing a setting)', () => {
    expect(settingsSection(readme)).toBe(settingsTable());
  });

  it('has one row per variable the configuration schema reads, with its default', () => {
    const rows = (settingsSection(readme) ?? '').split('\n').slice(2);
    const names = rows.map((row) => /^\| `([A-Z_0-9]+)` \|/.exec(row)?.[1]);
    expect(names).toEqual(Object.keys((ENV_SCHEMA as unknown as z.ZodObject).shape));
    for (const setting of SETTINGS.filter((s) => s.default !== undefined)) {
      expect(rows.find((row) => row.startsWith(`| \`${setting.name}\` |`))).toContain(`| \`${setting.default}\` |`);
    }
  });

  it('refuses a README without the markers', () => {
    expect(() => replaceSettingsSection('# no table')).toThrow('markers');
  });
});
