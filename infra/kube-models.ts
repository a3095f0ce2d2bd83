/**
 * client-node's generated models in the handler build. Its `ObjectSerializer` keeps a `typeMap`
 * naming all 759 model classes of every Kubernetes API group, so every bundle carried and evaluated
 * each of them at init (a class and its attribute table apiece) for the handful of kinds we read and
 * write. The serializer needs a model only to (de)serialize a body of that type: the map is cut to
 * the models the API classes we import can send or receive, followed through every attribute to
 * its last nested type. Which API classes those are is read from the controller's imports (every
 * name imported from '@kubernetes/client-node' under lambda/), never from a list kept by hand;
 * test/infra/kube-models.test.ts checks the bundled serializer against the package's own classes.
 *
 * The model modules only define their class and assign its own static tables, so they are marked
 * free of side effects and tree-shaking drops the ones the cut map no longer names. A map of
 * another shape (a client-node upgrade) fails the build instead of shipping uncut or cut wrong.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Plugin } from 'esbuild';
import { REPO_ROOT } from './contracts.js';

const PACKAGE = '@kubernetes/client-node';
const GEN = /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]gen[\\/]/;
const SERIALIZER = /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]gen[\\/]models[\\/]ObjectSerializer\.js$/;
const TYPE_MAP = /^let typeMap = \{\n((?: {4}"\w+": \w+,\n)+)\};$/m;

/** Every name imported (types included) from client-node by a source file under `dir`. */
export function clientNodeImports(dir = path.join(REPO_ROOT, 'lambda')): Set<string> {
  const names = new Set<string>();
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  for (const file of files) for (const name of importedNames(readFileSync(path.join(dir, file), 'utf8'))) names.add(name);
  if (names.has('*')) throw new Error(`a module under ${dir} imports ${PACKAGE} as a namespace: the models' cut needs the names`);
  return names;
}

/** The names a module imports or re-exports from client-node (`type` markers and aliases taken off); `*` for a namespace. */
export function importedNames(source: string): string[] {
  const from = String.raw`\s*from\s*['"]@kubernetes\/client-node['"]`;
  const named = source.matchAll(new RegExp(String.raw`(?:import|export)\s+(?:type\s+)?\{([^}]*)\}` + from, 'g'));
  const names = [...named].flatMap(([, specifiers]) =>
    (specifiers as string)
      .split(',')
      .map(
        (s) =>
          s
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0] as string,
      )
      .filter((s) => s !== ''),
  );
  return new RegExp(String.raw`(?:import|export)\s+(?:type\s+)?\*` + String.raw`[^;'"]*` + from).test(source) ? [...names, '*'] : names;
}

/** A type as the generator writes it, unwrapped to the model it names (`Array<V1Pod>` → V1Pod). */
export function innerType(type: string): string {
  const wrapped = /^Array<(.+)>$/.exec(type) ?? /^\{ \[key: string\]: (.+); \}$/.exec(type) ?? /^(.+) \| (?:null|undefined)$/.exec(type);
  return wrapped ? innerType(wrapped[1] as string) : type;
}

/** The body and response types the operations of an API class (de)serialize. */
export function operationTypes(apiSource: string): string[] {
  return [...apiSource.matchAll(/ObjectSerializer\.(?:de)?serialize\([^;]*?,\s*"([^"]+)"/g)].map((m) => innerType(m[1] as string));
}

/**
 * The models the imported API classes and models reach: their operations' types, then every
 * attribute type of each model reached, to the last.
 */
export function modelsReached(genDir: string, imported: Iterable<string>): Set<string> {
  const file = (kind: 'apis' | 'models', name: string) => path.join(genDir, kind, `${name}.js`);
  const pending: string[] = [];
  for (const name of imported) {
    if (existsSync(file('apis', name))) pending.push(...operationTypes(readFileSync(file('apis', name), 'utf8')));
    else pending.push(name);
  }
  const reached = new Set<string>();
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (reached.has(name) || !/^\w+$/.test(name) || !existsSync(file('models', name))) continue;
    reached.add(name);
    const attributes = readFileSync(file('models', name), 'utf8').matchAll(/^\s*"type": "([^"]+)",?$/gm);
    for (const [, type] of attributes) pending.push(innerType(type as string));
  }
  return reached;
}

/** ObjectSerializer's source with its `typeMap` cut to `keep`; throws on a map of another shape. */
export function cutTypeMap(source: string, keep: ReadonlySet<string>): string {
  const map = TYPE_MAP.exec(source);
  if (map === null) throw new Error(`${PACKAGE}: ObjectSerializer's typeMap is not in the shape the build cuts; see infra/kube-models.ts`);
  const entries = (map[1] as string).split('\n').filter((line) => keep.has(/"(\w+)"/.exec(line)?.[1] ?? ''));
  return source.replace(TYPE_MAP, `let typeMap = {\n${entries.join('\n')}\n};`);
}

export const kubeModelsCut: Plugin = {
  name: 'kube-models-cut',
  setup(build) {
    const imported = clientNodeImports();
    build.onResolve({ filter: /[\\/]models[\\/]\w+\.js$/ }, (args) => {
      if (!GEN.test(args.importer) || !args.path.startsWith('.')) return undefined;
      return { path: path.join(args.resolveDir, args.path), sideEffects: false };
    });
    build.onLoad({ filter: SERIALIZER }, async (args) => {
      const modelsDir = path.dirname(args.path);
      return { contents: cutTypeMap(await readFile(args.path, 'utf8'), modelsReached(path.dirname(modelsDir), imported)), loader: 'js' };
    });
    // A bundled module outside lambda/ importing from client-node would go unseen by the cut: refuse it.
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (/[\\/]node_modules[\\/]/.test(args.path)) return undefined;
      const unseen = importedNames(await readFile(args.path, 'utf8')).filter((n) => !imported.has(n));
      if (unseen.length > 0)
        return { errors: [{ text: `${args.path} imports ${unseen.join(', ')} from ${PACKAGE}, unseen by the models' cut` }] };
      return undefined;
    });
  },
};
