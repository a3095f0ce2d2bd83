/**
 * `npm run docs:settings`: writes the settings table (rendered from lambda/settings.ts) into the
 * README between its markers. test/cli/readme.test.ts fails when the README and the table differ.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { replaceSettingsSection } from '../lambda/cli/readme-sections.js';

const path = new URL('../README.md', import.meta.url);
await writeFile(path, replaceSettingsSection(await readFile(path, 'utf8')));
console.error('README.md: settings table written');
