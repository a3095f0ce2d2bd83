/**
 * How every handler is bundled and started, in one place: the stack's functions
 * (constructs/controller-function.ts) and the bench's bundles (bench/bundles.ts) are built from it,
 * so what the bench measures is what Lambda runs.
 */

/**
 * ESM bundles still contain CommonJS dependencies that call `require` (e.g. for Node built-ins);
 * esbuild's shim needs a real `require` in module scope.
 */
export const REQUIRE_SHIM =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/**
 * Whitespace and syntax are minified, identifiers are not, and names are kept: a stack trace in
 * the logs names the functions it went through without `--enable-source-maps`. That flag is off
 * because Node parses the whole map at the first stack it formats (an SDK socket error is enough)
 * and keeps it: 0.3 s and ~75 MB of heap per execution environment, measured at 5,000 nodes as
 * 1.4 s of a sync pass's CPU and 95 MB of its peak. The map is still shipped beside the bundle
 * (sources left out) to decode a position by hand.
 */
export const MINIFY = { minifyWhitespace: true, minifySyntax: true, minifyIdentifiers: false, keepNames: true } as const;

/**
 * The V8 heap limits Lambda's Node.js runtime starts a function with, from its memory size: a
 * tenth for the young generation (two semi-spaces), the rest for the old one. The bench runs the
 * full pass with them so its peak memory and GC time are a function's, not a workstation's.
 */
export function lambdaHeapFlags(memoryMb: number): string[] {
  const newSpaceMb = Math.floor(memoryMb / 10);
  return [`--max-semi-space-size=${Math.floor(newSpaceMb / 2)}`, `--max-old-space-size=${memoryMb - newSpaceMb}`];
}
