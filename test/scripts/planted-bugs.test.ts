/**
 * The audit's planted bugs (scripts/planted-bugs.ts) still say what they plant: each edit finds its
 * text exactly once, and the planted code still parses (a planted file that fails to transform makes
 * every test importing it fail, which the audit would count as a kill).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { transformSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { PLANTED_BUGS } from '../../scripts/planted-bugs.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the planted bugs match the code they plant into', () => {
  it.each(PLANTED_BUGS.flatMap((bug) => bug.edits.map((edit, i) => [`${bug.name} #${i + 1} (${edit.file})`, edit] as const)))(
    '%s',
    (_name, edit) => {
      const text = readFileSync(path.join(ROOT, edit.file), 'utf8');
      expect(text.split(edit.find).length - 1).toBe(1);
    },
  );
});

describe('the planted bugs still parse once planted', () => {
  it.each(PLANTED_BUGS.map((bug) => [bug.name, bug] as const))('%s', (_name, bug) => {
    const planted = new Map<string, string>();
    for (const edit of bug.edits) {
      const text = planted.get(edit.file) ?? readFileSync(path.join(ROOT, edit.file), 'utf8');
      planted.set(
        edit.file,
        text.replace(edit.find, () => edit.replace),
      );
    }
    for (const [file, text] of planted) expect(() => transformSync(text, { loader: 'ts', format: 'esm', sourcefile: file })).not.toThrow();
  });
});
