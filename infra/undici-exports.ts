/**
 * undici in the handler build, its index cut to the exports imported from it. client-node imports
 * `Agent`, `ProxyAgent` and `fetch` from 'undici', whose index is CommonJS: bundled, all of it runs
 * at init (mock agents, cache stores, WebSocket, EventSource, cookies), ~0.3 MB and ~15 ms of CPU
 * of each handler for classes nothing calls. The index is a flat list of top-level statements, so
 * it is cut as a tree-shaker would: the statements that export an imported name, every statement
 * with neither an export nor a declaration (its side effects, such as the request methods it
 * assigns onto `Dispatcher.prototype`), and the declarations those reach, as written.
 *
 * Which names are imported is read from client-node's modules, the package that imports undici;
 * any module the build reaches that imports other names, or takes undici whole, fails the build.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Plugin } from 'esbuild';
import ts from 'typescript';

/** The names a module imports from 'undici' (aliases taken off); `*` when it takes the package whole. */
export function undiciImports(source: string): string[] {
  const named = [...source.matchAll(/import\s*\{([^}]*)\}\s*from\s*['"]undici['"]/g)].flatMap(([, specifiers]) =>
    (specifiers as string)
      .split(',')
      .map((s) => s.trim().split(/\s+as\s+/)[0] as string)
      .filter((s) => s !== ''),
  );
  const whole = /(?:import\s+(?:\*\s+as\s+)?\w+\s+from|require\s*\()\s*['"]undici['"]/.test(source);
  return whole ? [...named, '*'] : named;
}

interface TopLevel {
  text: string;
  declares: string[];
  /** The `module.exports.<name>` it assigns, if it is such an assignment. */
  exports?: string;
  references: Set<string>;
}

function exportedName(statement: ts.Statement): string | undefined {
  if (!ts.isExpressionStatement(statement) || !ts.isBinaryExpression(statement.expression)) return undefined;
  let target = statement.expression.left;
  while (ts.isPropertyAccessExpression(target) && target.expression.getText() !== 'module.exports') target = target.expression;
  return ts.isPropertyAccessExpression(target) ? target.name.text : undefined;
}

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : bindingNames(element.name)));
}

function topLevel(statement: ts.Statement): TopLevel {
  const references = new Set<string>();
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node)) references.add(node.text);
    node.forEachChild(visit);
  };
  visit(statement);
  const declares = ts.isVariableStatement(statement)
    ? statement.declarationList.declarations.flatMap((d) => bindingNames(d.name))
    : ts.isFunctionDeclaration(statement) && statement.name
      ? [statement.name.text]
      : [];
  const exports = exportedName(statement);
  return { text: statement.getFullText(), declares, ...(exports === undefined ? {} : { exports }), references };
}

/** A CommonJS index cut to the statements `wanted` exports need (see above). */
export function keepExports(source: string, wanted: ReadonlySet<string>): string {
  const file = ts.createSourceFile('index.js', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const statements = file.statements.map(topLevel);
  const missing = [...wanted].filter((name) => !statements.some((s) => s.exports === name));
  if (missing.length > 0) throw new Error(`undici's index exports no ${missing.join(', ')}; see infra/undici-exports.ts`);
  const kept = new Set(statements.filter((s) => (s.exports === undefined ? s.declares.length === 0 : wanted.has(s.exports))));
  for (let grew = true; grew;) {
    grew = false;
    for (const s of statements) {
      if (kept.has(s) || !s.declares.some((name) => [...kept].some((k) => k.references.has(name)))) continue;
      kept.add(s);
      grew = true;
    }
  }
  return statements
    .filter((s) => kept.has(s))
    .map((s) => s.text)
    .join('');
}

const UNDICI_INDEX = /[\\/]node_modules[\\/]undici[\\/]index\.js$/;

/** The names client-node's modules (every .js file of its package) import from undici. */
export function clientNodeUndiciImports(packageDir: string): Set<string> {
  const files = readdirSync(packageDir, { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.js') && !f.includes('node_modules'),
  );
  return new Set(files.flatMap((f) => undiciImports(readFileSync(path.join(packageDir, f), 'utf8'))));
}

export function undiciImportedExports(packageDir: string): Plugin {
  return {
    name: 'undici-imported-exports',
    setup(build) {
      const wanted = clientNodeUndiciImports(packageDir);
      // Any module the build reaches that imports undici must ask for names the cut keeps.
      build.onResolve({ filter: /^undici$/ }, (args) => {
        const unseen = undiciImports(readFileSync(args.importer, 'utf8')).filter((name) => !wanted.has(name));
        if (unseen.length === 0) return undefined;
        return { errors: [{ text: `${args.importer} imports ${unseen.join(', ')} from undici, which the cut of its index leaves out` }] };
      });
      build.onLoad({ filter: UNDICI_INDEX }, async (args) => ({
        contents: keepExports(await readFile(args.path, 'utf8'), wanted),
        loader: 'js',
      }));
    },
  };
}
