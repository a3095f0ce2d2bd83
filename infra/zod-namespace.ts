/**
 * zod's `z` imported by name (`import { z } from 'zod'`, as our modules and Powertools' parser
 * schemas write it) is a namespace object handed on through an export, and esbuild keeps such an
 * object whole: every locale zod ships and its JSON Schema converters, ~470 KB of a handler's
 * bundle and ~20 ms of its init CPU for the English messages and the few schemas we build.
 * Imported as the package's namespace (`import * as z from 'zod'`), `z.object(…)` is a property
 * access esbuild follows to the one export, and tree-shaking keeps what the modules use. zod's
 * index re-exports every name of `z`, so each `z.name` reads the same export either way.
 */
import { readFile } from 'node:fs/promises';
import type { Plugin } from 'esbuild';

/** A value import from 'zod' (never `import type`), its specifiers, its quote. */
const ZOD_IMPORT = /import(?!\s+type\b)\s*\{([^}]*)\}\s*from\s*(['"])zod\2;?/g;

/** `import { z, … } from 'zod'` written as a namespace import of `z` beside the other names. */
export function namespaceZodImports(source: string): string {
  return source.replace(ZOD_IMPORT, (whole, specifiers: string, quote: string) => {
    const names = specifiers
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (!names.includes('z')) return whole;
    const others = names.filter((s) => s !== 'z');
    const namespace = `import * as z from ${quote}zod${quote};`;
    return others.length === 0 ? namespace : `${namespace} import { ${others.join(', ')} } from ${quote}zod${quote};`;
  });
}

const SCRIPT = /\.(?:[cm]?js|[cm]?ts)$/;

export const zodNamespaceImports: Plugin = {
  name: 'zod-namespace-imports',
  setup(build) {
    build.onLoad({ filter: SCRIPT }, async (args) => {
      if (/[\\/]node_modules[\\/]zod[\\/]/.test(args.path)) return undefined;
      const source = await readFile(args.path, 'utf8');
      const rewritten = namespaceZodImports(source);
      if (rewritten === source) return undefined;
      return { contents: rewritten, loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js' };
    });
  },
};
