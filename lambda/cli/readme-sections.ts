/** The README sections generated from code: the settings table between its two markers. */
import { settingsTable } from '../settings.js';

const SETTINGS_START = '<!-- settings:start (npm run docs:settings) -->';
const SETTINGS_END = '<!-- settings:end -->';

/** The text between the markers, or undefined when the README lacks them. */
export function settingsSection(readme: string): string | undefined {
  const start = readme.indexOf(SETTINGS_START);
  const end = readme.indexOf(SETTINGS_END);
  return start < 0 || end < start ? undefined : readme.slice(start + SETTINGS_START.length, end).trim();
}

export function replaceSettingsSection(readme: string): string {
  if (settingsSection(readme) === undefined) throw new Error(`README.md has no ${SETTINGS_START} … ${SETTINGS_END} markers`);
  const start = readme.indexOf(SETTINGS_START) + SETTINGS_START.length;
  return `${readme.slice(0, start)}\n\n${settingsTable()}\n\n${readme.slice(readme.indexOf(SETTINGS_END))}`;
}
