/**
 * The walls lint keeps (.dependency-cruiser.js) name folders that exist: a rule whose `from` matches
 * no file after a move would pass vacuously.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { IConfiguration } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const config = ((await import(pathToFileURL(path.join(ROOT, '.dependency-cruiser.js')).href)) as { default: IConfiguration }).default;
const rules = config.forbidden ?? [];
/** Every folder of TypeScript in the tree: the ones lint:walls must cruise. */
const FOLDERS = ['lambda', 'infra', 'sandbox', 'bench', 'scripts', 'test'];
const tracked = execFileSync('git', ['ls-files', ...FOLDERS], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file.endsWith('.ts'));

describe('the walls between folders', () => {
  const walled = rules.filter((rule) => typeof rule.from.path === 'string');

  it.each(walled.map((rule) => [rule.name, rule.from.path as string] as const))('%s guards files that exist (%s)', (_name, from) => {
    expect(tracked.filter((file) => new RegExp(from).test(file)).length).toBeGreaterThan(0);
  });

  it('include the cycle rule over the whole tree', () => {
    expect(rules.some((rule) => rule.name === 'no-cycle' && 'to' in rule && 'circular' in rule.to && rule.to.circular === true)).toBe(true);
  });

  it('are checked over every folder of TypeScript by npm run lint:walls (a cycle outside them would go unseen)', () => {
    const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const words = (scripts['lint:walls'] ?? '').split(' ');
    const cruised = words.slice(
      1,
      words.findIndex((word) => word.startsWith('--')),
    );
    expect(words[0]).toBe('depcruise');
    expect(cruised).toEqual(FOLDERS);
    const withTypeScript = execFileSync('git', ['ls-files', '*.ts'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((file) => file.includes('/'))
      .map((file) => file.split('/')[0] ?? '');
    expect([...new Set(withTypeScript)].filter((folder) => !FOLDERS.includes(folder))).toEqual([]);
  });
});
