/**
 * client-node's generated code in the handler build, cut to what the controller uses. Its
 * `ObjectSerializer` keeps a `typeMap` naming all 759 model classes of every Kubernetes API group,
 * and each API class is four classes with a method per operation of its group, so every bundle
 * carried (and evaluated, for the models) all of it for the sixteen operations we call. The API
 * classes imported under lambda/ are cut to the operations called there (kube-api-cut.ts), and the
 * map to the models those operations send or receive, followed through every attribute to its last
 * nested type. Which names are imported is read from the controller's code, never from a list kept
 * by hand; test/infra/kube-models.test.ts checks the bundled classes and serializer against the
 * package's own.
 *
 * The model modules only define their class and assign its own static tables, so they are marked
 * free of side effects and tree-shaking drops the ones the cut map no longer names. A map of
 * another shape (a client-node upgrade) fails the build instead of shipping uncut or cut wrong.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Plugin } from 'esbuild';
import { REPO_ROOT } from './contracts.js';
import { keepMembers, operationsCalled, operationsOf, servesOneOf } from './kube-api-cut.js';

const PACKAGE = '@kubernetes/client-node';
const GEN = /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]gen[\\/]/;
const SERIALIZER = /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]gen[\\/]models[\\/]ObjectSerializer\.js$/;
const API_FILE = /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]gen[\\/]apis[\\/]\w+Api\.js$/;
const TYPES_FILE = /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]gen[\\/]types[\\/](?:Observable|ObjectParam)API\.js$/;
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

/** The models `roots` reach: each root, then every attribute type of each model reached, to the last. */
export function modelsReached(genDir: string, roots: Iterable<string>): Set<string> {
  const file = (name: string) => path.join(genDir, 'models', `${name}.js`);
  const pending = [...roots];
  const reached = new Set<string>();
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (reached.has(name) || !/^\w+$/.test(name) || !existsSync(file(name))) continue;
    reached.add(name);
    const attributes = readFileSync(file(name), 'utf8').matchAll(/^\s*"type": "([^"]+)",?$/gm);
    for (const [, type] of attributes) pending.push(innerType(type as string));
  }
  return reached;
}

/** What the build keeps of client-node's generated code. */
export interface KubeCut {
  /** Each imported API class and the operations of it the controller calls. */
  operations: Map<string, Set<string>>;
  /** The models those operations and the imported names reach. */
  models: Set<string>;
}

/** An API class file cut to `operations` (its request factory and its response processor). */
export function cutApiSource(source: string, api: string, operations: ReadonlySet<string>): string {
  const keep = servesOneOf(operations);
  return keepMembers(keepMembers(source, `${api}RequestFactory`, keep), `${api}ResponseProcessor`, keep);
}

/** The cut for the names imported from client-node under lambda/ and the operations called there. */
export function kubeCut(genDir: string, imported: ReadonlySet<string>): KubeCut {
  const apiFile = (name: string) => path.join(genDir, 'apis', `${name}.js`);
  const apis = [...imported].filter((name) => existsSync(apiFile(name)));
  const sources = new Map(apis.map((api) => [api, readFileSync(apiFile(api), 'utf8')]));
  const called = operationsCalled(new Set(apis.flatMap((api) => operationsOf(sources.get(api) as string))));
  const operations = new Map(apis.map((api) => [api, new Set(operationsOf(sources.get(api) as string).filter((op) => called.has(op)))]));
  const roots = [...imported].filter((name) => !sources.has(name));
  for (const [api, ops] of operations) roots.push(...operationTypes(cutApiSource(sources.get(api) as string, api, ops)));
  return { operations, models: modelsReached(genDir, roots) };
}

/** ObjectSerializer's source with its `typeMap` cut to `keep`; throws on a map of another shape. */
export function cutTypeMap(source: string, keep: ReadonlySet<string>): string {
  const map = TYPE_MAP.exec(source);
  if (map === null) throw new Error(`${PACKAGE}: ObjectSerializer's typeMap is not in the shape the build cuts; see infra/kube-models.ts`);
  const entries = (map[1] as string).split('\n').filter((line) => keep.has(/"(\w+)"/.exec(line)?.[1] ?? ''));
  return source.replace(TYPE_MAP, `let typeMap = {\n${entries.join('\n')}\n};`);
}

/** client-node's generated directory, as the build resolves the package from the repository. */
export function clientNodeGen(): string {
  return path.join(path.dirname(createRequire(path.join(REPO_ROOT, 'package.json')).resolve(PACKAGE)), 'gen');
}

export const kubeModelsCut: Plugin = {
  name: 'kube-models-cut',
  setup(build) {
    const imported = clientNodeImports();
    const cut = kubeCut(clientNodeGen(), imported);
    const js = async (file: string, edit: (source: string) => string) => ({
      contents: edit(await readFile(file, 'utf8')),
      loader: 'js' as const,
    });
    build.onResolve({ filter: /[\\/]models[\\/]\w+\.js$/ }, (args) => {
      if (!GEN.test(args.importer) || !args.path.startsWith('.')) return undefined;
      return { path: path.join(args.resolveDir, args.path), sideEffects: false };
    });
    build.onLoad({ filter: SERIALIZER }, (args) => js(args.path, (source) => cutTypeMap(source, cut.models)));
    build.onLoad({ filter: API_FILE }, (args) => {
      const api = path.basename(args.path, '.js');
      const operations = cut.operations.get(api);
      return operations === undefined ? undefined : js(args.path, (source) => cutApiSource(source, api, operations));
    });
    build.onLoad({ filter: TYPES_FILE }, (args) => {
      const prefix = path.basename(args.path) === 'ObservableAPI.js' ? 'Observable' : 'Object';
      return js(args.path, (source) =>
        [...cut.operations].reduce(
          (cutSource, [api, operations]) => keepMembers(cutSource, `${prefix}${api}`, servesOneOf(operations)),
          source,
        ),
      );
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
