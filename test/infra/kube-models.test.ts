/**
 * client-node's models cut in the handler build (infra/kube-models.ts): every model the API classes
 * imported under lambda/ can send or receive, followed through the package's own classes (their
 * runtime attribute tables, not the build's reading of the files), must still be known to the
 * bundled serializer; a model no imported API reaches must be gone.
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
import { clientNodeImports, cutTypeMap, importedNames, innerType, operationTypes } from '../../infra/kube-models.js';

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

const imported = clientNodeImports();
const apis = [...imported].filter((name) => /^\w+Api$/.test(name) && typeof modelOf(name) === 'function');
const roots = [...apis.flatMap((api) => operationTypes(readFileSync(path.join(GEN, 'apis', `${api}.js`), 'utf8'))), ...imported];
const expected = reachedAtRuntime(roots);
let dir: string;
let outfile: string;

const unknownToBundle = (types: string[]): string[] =>
  JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', UNKNOWN_TO_BUNDLE, JSON.stringify([outfile, types])], {
      encoding: 'utf8',
    }),
  ) as string[];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kube-models-'));
  const entry = path.join(dir, 'serializer.ts');
  writeFileSync(
    entry,
    [
      `export { ${apis.join(', ')} } from '@kubernetes/client-node';`,
      `export { ObjectSerializer } from '${path.join(GEN, 'models', 'ObjectSerializer.js')}';`,
    ].join('\n'),
  );
  outfile = path.join(dir, 'index.mjs');
  await build({ ...handlerBuildOptions(entry, outfile, { withPlugins: true }), nodePaths: [path.join(REPO_ROOT, 'node_modules')] });
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("client-node's models in the cut build", () => {
  it('finds the API classes and the kinds the controller writes among its imports', () => {
    expect(apis).toEqual(expect.arrayContaining(['CoreV1Api', 'StorageV1Api', 'CoordinationV1Api']));
    expect(expected).toEqual(
      expect.arrayContaining(['V1Node', 'V1PersistentVolume', 'V1VolumeAttachment', 'V1Lease', 'CoreV1Event', 'V1ObjectMeta']),
    );
  });

  it('keeps every model the imported API classes reach, to the last nested attribute', () => {
    expect(unknownToBundle(expected)).toEqual([]);
  });

  it('leaves out models no imported API class reaches', () => {
    const unreached = ['V1Deployment', 'V1Ingress', 'V1CustomResourceDefinition', 'V1Job'];
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
