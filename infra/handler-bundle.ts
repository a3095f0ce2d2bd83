/**
 * The esbuild build of a Lambda handler, through esbuild's JS API: the stack's functions
 * (constructs/controller-function.ts, as a local bundling step) and the bench's bundles are built
 * here, so what the bench measures is what Lambda runs. The options are the ones NodejsFunction
 * passed on its command line (ESM for node24, `module` before `main`, the `require` shim, names
 * kept, whitespace and syntax minified, a source map without sources, the AWS SDK inside), plus
 * plugins a command line cannot take: the SDK's schemas made shakeable and Node's built-in
 * modules required instead of imported (below), client-node's API classes and models cut to the
 * operations we call (kube-models.ts), zod imported as a namespace (zod-namespace.ts).
 *
 * Run as a script (`node --import tsx infra/handler-bundle.ts <entry> <outdir>`) because CDK's
 * local bundling is synchronous and esbuild's synchronous API takes no plugins.
 */
import { readFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { MINIFY, REQUIRE_SHIM } from './bundling.js';
import { REPO_ROOT } from './contracts.js';
import { clientNodeGen, kubeModelsCut } from './kube-models.js';
import { undiciImportedExports } from './undici-exports.js';
import { zodNamespaceImports } from './zod-namespace.js';

/** The SDK's generated schema modules (one per client: every operation's shapes). */
const SDK_SCHEMAS = /[\\/]@aws-sdk[\\/][^\\/]+[\\/]dist-es[\\/](?:submodules[\\/][^\\/]+[\\/])?schemas[\\/]schemas_\d+\.js$/;

/**
 * The SDK's schema modules write trait objects with computed keys (`{ [_xN]: _m }`, where
 * `const _xN = "xmlName"`). esbuild cannot prove a computed key free of side effects, so it keeps
 * every shape of every operation: all 2,580 EC2 shapes in each bundle for the four EC2 calls we
 * make. Written as the string literals they name, the keys let tree-shaking keep exactly the shapes
 * the imported commands reach; the objects are the same.
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

const REQUIRED_BUILTIN = 'required-builtin';

/**
 * An ES import of a built-in module makes Node read every export of it to build the module's
 * namespace, getters included: node:http's `WebSocket`, `MessageEvent` and `CloseEvent` getters
 * load Node's own copy of undici, ~45 ms of a handler's init CPU for classes nothing here uses. A
 * CommonJS `require` (the banner's shim) returns the exports object and leaves the getters alone,
 * so each built-in is bundled as a one-line CommonJS module that requires it.
 */
const requiredBuiltins: Plugin = {
  name: 'required-builtins',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      if (!isBuiltin(args.path)) return undefined;
      return args.namespace === REQUIRED_BUILTIN ? { path: args.path, external: true } : { path: args.path, namespace: REQUIRED_BUILTIN };
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: REQUIRED_BUILTIN }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/** The plugins of the shipped build, in the order esbuild asks them. */
export const SHIPPED_PLUGINS: readonly Plugin[] = [
  shakeableSdkSchemas,
  requiredBuiltins,
  kubeModelsCut,
  undiciImportedExports(dirname(dirname(clientNodeGen()))),
  zodNamespaceImports,
];

export interface HandlerBuild {
  /** The plugins (what ships); false: the plain bundle NodejsFunction built from the same options. */
  withPlugins: boolean;
  /** The shipped build but this plugin (the bench measures what each one saves). */
  without?: string;
}

function pluginsOf({ withPlugins, without }: HandlerBuild): Plugin[] {
  if (!withPlugins) return [];
  if (without !== undefined && !SHIPPED_PLUGINS.some((p) => p.name === without)) throw new Error(`no build plugin named ${without}`);
  return SHIPPED_PLUGINS.filter((p) => p.name !== without);
}

/** esbuild's options for one handler's bundle at `outfile`. */
export function handlerBuildOptions(entry: string, outfile: string, handlerBuild: HandlerBuild): BuildOptions {
  return {
    entryPoints: [entry],
    bundle: true,
    outfile,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    mainFields: ['module', 'main'],
    ...MINIFY,
    sourcemap: true,
    sourcesContent: false,
    banner: { js: REQUIRE_SHIM },
    tsconfig: join(REPO_ROOT, 'tsconfig.json'),
    plugins: pluginsOf(handlerBuild),
    logLevel: 'error',
  };
}

/** Bundles `entry` into `<outDir>/index.mjs` and its map; returns the bundle's path. */
export async function bundleHandler(entry: string, outDir: string, options: HandlerBuild = { withPlugins: true }): Promise<string> {
  const outfile = join(outDir, 'index.mjs');
  await build(handlerBuildOptions(entry, outfile, options));
  return outfile;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [entry, outDir] = process.argv.slice(2);
  if (entry === undefined || outDir === undefined) throw new Error('usage: handler-bundle.ts <entry> <outdir>');
  await bundleHandler(entry, outDir);
}
