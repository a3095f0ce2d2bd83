/**
 * `npm run build:cli` (also run by `npm ci` through `prepare`): bundles the operator CLI with esbuild
 * into dist/cli/main.js, the package's `ebs-attach-detach` bin. Code splitting keeps `--help` to the
 * argument parser; the controller loads only when a command runs.
 */
import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/** Builds into `outdir` and returns the path of the executable entry. */
export async function buildCli(outdir: string): Promise<string> {
  await build({
    entryPoints: ['lambda/cli/main.ts'],
    bundle: true,
    minify: true,
    sourcemap: 'linked',
    platform: 'node',
    format: 'esm',
    target: 'node22',
    splitting: true,
    outdir,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'warning',
    // The CommonJS dependencies bundled into ESM still call require().
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
  const entry = join(outdir, 'main.js');
  await chmod(entry, 0o755);
  return entry;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await buildCli('dist/cli');
