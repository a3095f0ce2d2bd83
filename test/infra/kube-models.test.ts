/**
 * client-node cut in the handler build (infra/kube-models.ts, infra/kube-api-cut.ts): each of the
 * four generated classes of an imported API keeps exactly the operations called under lambda/, and
 * every model those operations send or receive (read from each operation's own text), followed
 * through the package's own classes (their runtime attribute tables, not the build's reading of
 * the files), must still be known to the bundled serializer; a model none reaches must be gone.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/contracts.js';
import { handlerBuildOptions } from '../../infra/handler-bundle.js';
import { keepMembers, operationsCalled, operationsOf } from '../../infra/kube-api-cut.js';
import { clientNodeImports, cutTypeMap, importedNames, innerType } from '../../infra/kube-models.js';

type Model = { getAttributeTypeMap(): { type: string }[] };
const GEN = path.join(REPO_ROOT, 'node_modules', '@kubernetes', 'client-node', 'dist', 'gen');
const modelOf = (name: string) => (k8s as unknown as Record<string, Partial<Model> | undefined>)[name];

/** The models reached from `roots` through the package's classes as they run. */
function reachedAtRuntime(roots: string[]): string[] {
  const reached = new Set<string>();
  const pending = [...roots];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    const model = modelOf(name);
    if (reached.has(name) || typeof model?.getAttributeTypeMap !== 'function') continue;
    reached.add(name);
    // Every word of a type (`Array<V1Pod>`, `{ [key: string]: V1Taint; }`) that names a model.
    pending.push(...model.getAttributeTypeMap().flatMap((a) => a.type.match(/\w+/g) ?? []));
  }
  return [...reached].sort();
}

/** Of `types`, those the bundled serializer does not know (it hands an unknown type's data back as it came). */
const UNKNOWN_TO_BUNDLE = `
const [file, types] = JSON.parse(process.argv[1]);
const { ObjectSerializer } = await import(file);
console.log(JSON.stringify(types.filter((type) => { const probe = { probe: 1 }; return ObjectSerializer.serialize(probe, type, '') === probe; })));
`;

/** Each bundled class's methods, by the name the entry exports it under. */
const METHODS_IN_BUNDLE = `
const bundled = await import(process.argv[1]);
const methods = (c) => Object.getOwnPropertyNames(c.prototype).filter((m) => m !== 'constructor').sort();
console.log(JSON.stringify(Object.fromEntries(Object.entries(bundled).filter(([, c]) => typeof c === 'function').map(([name, c]) => [name, methods(c)]))));
`;

/** The text of a method of the generated file, up to the next member. */
function methodText(source: string, method: string): string {
  const start = source.search(new RegExp(String.raw`^ {4}async ${method}\(`, 'm'));
  if (start < 0) throw new Error(`no method ${method}`);
  const next = source.slice(start + 1).search(/^ {4}(?:async |\/\*\*)/m);
  return next < 0 ? source.slice(start) : source.slice(start, start + 1 + next);
}

const imported = clientNodeImports();
const apis = [...imported].filter((name) => /^\w+Api$/.test(name) && typeof modelOf(name) === 'function');
const apiSources = new Map(apis.map((api) => [api, readFileSync(path.join(GEN, 'apis', `${api}.js`), 'utf8')]));
const called = operationsCalled(new Set(apis.flatMap((api) => operationsOf(apiSources.get(api) as string))));
const calledOf = (api: string) => operationsOf(apiSources.get(api) as string).filter((op) => called.has(op));
// The types each called operation sends (its request factory) and receives (its response processor).
const roots = [
  ...apis.flatMap((api) =>
    calledOf(api).flatMap((op) => [
      methodText(apiSources.get(api) as string, op),
      methodText(apiSources.get(api) as string, `${op}WithHttpInfo`),
    ]),
  ),
].flatMap((text) =>
  [...text.matchAll(/ObjectSerializer\.(?:de)?serialize\([^;]*?,\s*"([^"]+)"/g)].flatMap((m) => (m[1] as string).match(/\w+/g) ?? []),
);
const expected = reachedAtRuntime([...roots, ...imported]);
let dir: string;
let outfile: string;

const child = <T>(script: string, arg: string): T =>
  JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script, arg], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }),
  ) as T;
const unknownToBundle = (types: string[]) => child<string[]>(UNKNOWN_TO_BUNDLE, JSON.stringify([outfile, types]));

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kube-models-'));
  const entry = path.join(dir, 'serializer.ts');
  const genFile = (...parts: string[]) => JSON.stringify(path.join(GEN, ...parts));
  writeFileSync(
    entry,
    [
      `export { ${apis.join(', ')} } from '@kubernetes/client-node';`,
      `export { ObjectSerializer } from ${genFile('models', 'ObjectSerializer.js')};`,
      `export { ${apis.map((api) => `Observable${api}`).join(', ')} } from ${genFile('types', 'ObservableAPI.js')};`,
      ...apis.map((api) => `export { ${api}RequestFactory, ${api}ResponseProcessor } from ${genFile('apis', `${api}.js`)};`),
    ].join('\n'),
  );
  outfile = path.join(dir, 'index.mjs');
  await build({ ...handlerBuildOptions(entry, outfile, { withPlugins: true }), nodePaths: [path.join(REPO_ROOT, 'node_modules')] });
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("client-node's API classes in the cut build", () => {
  it('finds the operations the controller calls among its code', () => {
    expect(apis).toEqual(expect.arrayContaining(['CoreV1Api', 'StorageV1Api', 'CoordinationV1Api']));
    expect([...called]).toEqual(
      expect.arrayContaining(['patchNodeStatus', 'createNamespacedEvent', 'patchVolumeAttachment', 'replaceNamespacedLease']),
    );
  });

  it('keeps, in each of the four classes of an API, exactly the members of the operations called', () => {
    const methods = child<Record<string, string[]>>(METHODS_IN_BUNDLE, outfile);
    for (const api of apis) {
      const ops = calledOf(api);
      const both = ops.flatMap((op) => [op, `${op}WithHttpInfo`]).sort();
      expect(methods[api], api).toEqual(both);
      expect(methods[`Observable${api}`], `Observable${api}`).toEqual(both);
      expect(methods[`${api}RequestFactory`], `${api}RequestFactory`).toEqual([...ops].sort());
      expect(methods[`${api}ResponseProcessor`], `${api}ResponseProcessor`).toEqual(ops.map((op) => `${op}WithHttpInfo`).sort());
    }
  });
});

describe("client-node's models in the cut build", () => {
  it('reaches the kinds the controller writes', () => {
    expect(expected).toEqual(
      expect.arrayContaining(['V1Node', 'V1PersistentVolume', 'V1VolumeAttachment', 'V1Lease', 'CoreV1Event', 'V1ObjectMeta']),
    );
  });

  it('keeps every model the called operations reach, to the last nested attribute', () => {
    expect(unknownToBundle(expected)).toEqual([]);
  });

  it('leaves out models no called operation reaches', () => {
    const unreached = ['V1Pod', 'V1Deployment', 'V1CustomResourceDefinition', 'V1Job'];
    expect(unreached.filter((name) => expected.includes(name))).toEqual([]);
    expect(unknownToBundle(unreached)).toEqual(unreached);
  });
});

describe('reading the imports and the generated code', () => {
  it.each([
    ['a value import', "import { KubeConfig, Watch } from '@kubernetes/client-node';", ['KubeConfig', 'Watch']],
    [
      'type-only, inline types and aliases',
      'import type { V1Pod } from \'@kubernetes/client-node\';\nimport { type V1Node, CoreV1Api as Core } from "@kubernetes/client-node";',
      ['V1Pod', 'V1Node', 'CoreV1Api'],
    ],
    ['a re-export', "export { V1Lease } from '@kubernetes/client-node';", ['V1Lease']],
    ['a namespace import (names unknown)', "import * as k8s from '@kubernetes/client-node';", ['*']],
    ['another package', "import { z } from 'zod';", []],
  ])('importedNames: %s', (_case, source, names) => {
    expect(importedNames(source)).toEqual(names);
  });

  it.each([
    ['V1Pod', 'V1Pod'],
    ['Array<V1Pod>', 'V1Pod'],
    ['{ [key: string]: Array<V1Taint>; }', 'V1Taint'],
    ['V1Node | null', 'V1Node'],
  ])('innerType(%s) is %s', (type, inner) => {
    expect(innerType(type)).toBe(inner);
  });

  it('refuses a typeMap of another shape instead of shipping it uncut', () => {
    expect(() => cutTypeMap('const typeMap = { V1Pod };', new Set(['V1Pod']))).toThrow(/typeMap is not in the shape/);
  });
});

describe('keepMembers', () => {
  const generated = [
    'export class FooApi {',
    '    constructor(configuration) {',
    '        this.configuration = configuration;',
    '    }',
    '    /**',
    '     * read a Foo',
    '     */',
    '    readFoo(name, _options) {',
    '        return this.api.readFoo(name);',
    '    }',
    '    async listFoo(_options) {',
    '        return [];',
    '    }',
    '}',
    'export class BarApi {',
    '    listFoo() {',
    '    }',
    '}',
  ].join('\n');

  it('keeps the constructor and the members asked for, doc comments with them, and leaves other classes alone', () => {
    const cut = keepMembers(generated, 'FooApi', (member) => member === 'readFoo').split('\n');
    expect(cut.slice(0, 11)).toEqual([...generated.split('\n').slice(0, 10), '}']);
    expect(cut.slice(11)).toEqual(generated.split('\n').slice(14));
  });

  it('refuses a class it cannot read member by member instead of cutting it wrong', () => {
    expect(() => keepMembers(generated.replace('    async listFoo(_options) {', '    listFoo = () => {'), 'FooApi', () => true)).toThrow(
      /not a member/,
    );
    expect(() => keepMembers(generated, 'BazApi', () => true)).toThrow(/no class BazApi/);
  });
});
