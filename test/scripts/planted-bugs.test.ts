/** The audit's planted bugs (scripts/planted-bugs.ts) still say what they plant: each edit finds its text exactly once. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
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
