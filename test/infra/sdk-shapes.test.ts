/**
 * The handler build keeps only the SDK shapes the imported commands reach (infra/handler-bundle.ts).
 * Which commands those are is read from the controller's own imports, never from a list kept by
 * hand: every `…Command` (and the command behind every `paginate…`) imported from an
 * `@aws-sdk/client-*` package under lambda/ is built with the shipping build, and its whole schema
 * (input, output and every shape they reach) must equal the SDK's own.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/contracts.js';
import { handlerBuildOptions, literalSchemaKeys } from '../../infra/handler-bundle.js';

type Imports = Map<string, Set<string>>;

/** `{ names } from '@aws-sdk/client-…'` in every source file under lambda/, by package. */
function sdkCommandsImported(): Imports {
  const imports: Imports = new Map();
  const files = readdirSync(path.join(REPO_ROOT, 'lambda'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  for (const file of files) {
    const source = readFileSync(path.join(REPO_ROOT, 'lambda', file), 'utf8');
    for (const [, names, pkg] of source.matchAll(/import\s*\{([^}]*)\}\s*from\s*'(@aws-sdk\/client-[\w-]+)'/g)) {
      for (const raw of (names as string).split(',')) {
        const name = raw.trim();
        const command = /^\w+Command$/.test(name) ? name : /^paginate(\w+)$/.exec(name)?.[1]?.concat('Command');
        if (command === undefined) continue;
        const set = imports.get(pkg as string) ?? new Set<string>();
        imports.set(pkg as string, set.add(command));
      }
    }
  }
  return imports;
}

/**
 * Prints each command's schema with every lazy reference (`() => Shape$`) followed, shared and
 * recursive shapes named by their order of first visit, so two builds compare as strings.
 */
const DUMP_SCHEMAS = `
const [commands, ...specifiers] = JSON.parse(process.argv[1]);
const exported = Object.assign({}, ...(await Promise.all(specifiers.map((s) => import(s)))));
const canonical = (value, seen) => {
  if (typeof value === 'function') value = value.length === 0 ? value() : '<function>';
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (seen.has(value)) return '#' + seen.get(value);
  seen.set(value, seen.size);
  if (Array.isArray(value)) return '[' + value.map((v) => canonical(v, seen)).join(',') + ']';
  return '{' + Object.keys(value).sort().map((k) => JSON.stringify(k) + ':' + canonical(value[k], seen)).join(',') + '}';
};
const out = {};
for (const name of commands) out[name] = exported[name] ? canonical(new exported[name]({}).schema, new Map()) : 'missing';
console.log(JSON.stringify(out));
`;

function dumpSchemas(commands: string[], specifiers: string[]): Record<string, string> {
  const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', DUMP_SCHEMAS, JSON.stringify([commands, ...specifiers])], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Record<string, string>;
}

const imports = sdkCommandsImported();
const commands = [...imports.values()].flatMap((set) => [...set]).sort();
let dir: string;
let bundled: Record<string, string>;
let sdk: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'sdk-shapes-'));
  const entry = path.join(dir, 'commands.ts');
  writeFileSync(entry, [...imports].map(([pkg, names]) => `export { ${[...names].join(', ')} } from '${pkg}';`).join('\n'));
  const outfile = path.join(dir, 'index.mjs');
  await build({ ...handlerBuildOptions(entry, outfile, { withPlugins: true }), nodePaths: [path.join(REPO_ROOT, 'node_modules')] });
  bundled = dumpSchemas(commands, [outfile]);
  sdk = dumpSchemas(commands, [...imports.keys()]);
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SDK shapes in the trimmed build', () => {
  it('finds the commands the controller calls among its imports', () => {
    expect(commands).toEqual(expect.arrayContaining(['AttachVolumeCommand', 'DescribeVolumesCommand', 'ScanCommand', 'UpdateItemCommand']));
  });

  it.each(commands)('%s keeps its whole schema, as the SDK defines it', (command) => {
    expect(bundled[command]).not.toBe('missing');
    expect(bundled[command]).toBe(sdk[command]);
  });
});

describe('literalSchemaKeys', () => {
  const schemas = (body: string) => ['const _xN = "xmlName";', 'const _eQN = "ec2QueryName";', 'const _p = "__proto__";', body].join('\n');

  it.each([
    ['a key naming a string constant', '[1, { [_xN]: _m }]', '[1, { "xmlName": _m }]'],
    ['several keys in one object', '{ [_eQN]: `Min`, [_xN]: _m }', '{ "ec2QueryName": `Min`, "xmlName": _m }'],
    ['a key naming no constant of the module', '{ [_other]: 1 }', '{ [_other]: 1 }'],
    ['a key naming "__proto__" (a literal would set the prototype)', '{ [_p]: 1 }', '{ [_p]: 1 }'],
    ['an array index, not a key', 'x[_xN]', 'x[_xN]'],
  ])('%s', (_case, body, expected) => {
    expect(literalSchemaKeys(schemas(body)).split('\n').at(-1)).toBe(expected);
  });
});
