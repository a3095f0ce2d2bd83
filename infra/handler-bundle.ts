/**
 * The esbuild build of a Lambda handler: the stack's functions and the bench's bundle figures
 * both build here. ESM for node24, minified, a source map without sources (the functions run
 * with `--enable-source-maps`, which costs nothing at init on Node 24: maps load on first use),
 * the AWS SDK bundled, and the `require` shim CommonJS dependencies need inside an ES module.
 *
 * Run as a script (`node --import tsx infra/handler-bundle.ts <entry> <outdir>`) because CDK's
 * local bundling is synchronous and esbuild's synchronous API takes no plugins.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** esbuild's shim: a real `require` in module scope for the CommonJS code inside the ES module. */
const REQUIRE_SHIM = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** The SDK's generated schema modules (one per client, every operation's shapes). */
const SDK_SCHEMAS = /[\\/]@aws-sdk[\\/][^\\/]+[\\/]dist-es[\\/](?:submodules[\\/][^\\/]+[\\/])?schemas[\\/]schemas_\d+\.js$/;

/**
 * The SDK's schema modules write trait objects with computed keys (`{ [_xN]: _m }`, where
 * `const _xN = "xmlName"`). esbuild cannot prove a computed key free of side effects, so it keeps
 * every shape of every operation: 546 KB of EC2 schemas in each bundle for the four EC2 calls we
 * make, ~100 ms of the init's CPU. Writing the keys as the string literals they name lets
 * tree-shaking drop the unused shapes; the objects are the same.
 */
export function literalSchemaKeys(source: string): string {
  const strings = new Map([...source.matchAll(/^const (_\w+) = ("[^"\\]*");$/gm)].map((m) => [m[1], m[2]]));
  return source.replace(/\[(_\w+)\]:/g, (whole, name: string) => {
    const literal = strings.get(name);
    // A literal `"__proto__":` would set the prototype where the computed key makes an own property.
    return literal === undefined || literal === '"__proto__"' ? whole : `${literal}:`;
  });
}

const shakeableSdkSchemas: Plugin = {
  name: 'shakeable-sdk-schemas',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: SDK_SCHEMAS }, async (args) => ({
      contents: literalSchemaKeys(await readFile(args.path, 'utf8')),
      loader: 'js',
    }));
  },
};

/** Bundles `entry` into `<outDir>/index.mjs` (and its map); returns the bundle's path. */
export async function bundleHandler(entry: string, outDir: string): Promise<string> {
  const outfile = join(outDir, 'index.mjs');
  await build({
    entryPoints: [entry],
    bundle: true,
    outfile,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    mainFields: ['module', 'main'],
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    banner: { js: REQUIRE_SHIM },
    tsconfig: join(ROOT, 'tsconfig.json'),
    plugins: [shakeableSdkSchemas],
    logLevel: 'error',
  });
  return outfile;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [entry, outDir] = process.argv.slice(2);
  if (entry === undefined || outDir === undefined) throw new Error('usage: handler-bundle.ts <entry> <outdir>');
  await bundleHandler(entry, outDir);
}
