/**
 * undici's index cut to the names imported from it (infra/undici-exports.ts): the shipped build's
 * `fetch` still makes a request through an `Agent`, as client-node's requests do, and the modules
 * no imported name reaches (mock agents, WebSocket, cache storage) are gone.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/contracts.js';
import { handlerBuildOptions } from '../../infra/handler-bundle.js';
import { keepExports, undiciImports } from '../../infra/undici-exports.js';

/** A request through the bundled fetch and Agent to a server of the child's own. */
const FETCH_THROUGH_AGENT = `
import { createServer } from 'node:http';
const { Agent, fetch } = await import(process.argv[1]);
const server = createServer((request, response) => response.end('hello ' + request.url)).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const agent = new Agent({ connect: { timeout: 5000 } });
const response = await fetch('http://127.0.0.1:' + server.address().port + '/ping', { dispatcher: agent });
console.log(JSON.stringify({ status: response.status, body: await response.text() }));
await agent.close();
server.close();
`;

let dir: string;
let outfile: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'undici-exports-'));
  const entry = path.join(dir, 'undici.ts');
  writeFileSync(entry, "export { KubeConfig } from '@kubernetes/client-node';\nexport { Agent, fetch } from 'undici';\n");
  outfile = path.join(dir, 'index.mjs');
  await build({ ...handlerBuildOptions(entry, outfile, { withPlugins: true }), nodePaths: [path.join(REPO_ROOT, 'node_modules')] });
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('undici in the cut build', () => {
  it('fetches through an Agent', () => {
    const answer = execFileSync(process.execPath, ['--input-type=module', '-e', FETCH_THROUGH_AGENT, outfile], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(JSON.parse(answer)).toEqual({ status: 200, body: 'hello /ping' });
  });

  it('leaves out the modules no imported name reaches', () => {
    const { sources } = JSON.parse(readFileSync(`${outfile}.map`, 'utf8')) as { sources: string[] };
    const undici = sources.filter((s) => s.includes('node_modules/undici/'));
    expect(undici.some((s) => s.endsWith('lib/web/fetch/index.js'))).toBe(true);
    expect(undici.filter((s) => /lib\/(mock|web\/websocket|web\/cache|web\/eventsource)\//.test(s))).toEqual([]);
  });
});

describe('reading and cutting the index', () => {
  it.each([
    ['names, aliased', "import { Agent as UndiciAgent, fetch } from 'undici';", ['Agent', 'fetch']],
    ['a namespace', "import * as undici from 'undici';", ['*']],
    ['a require', "const undici = require('undici');", ['*']],
    ['another package', "import { fetch } from 'undici-types';", []],
  ])('undiciImports: %s', (_case, source, names) => {
    expect(undiciImports(source)).toEqual(names);
  });

  const index = [
    "'use strict'",
    "const A = require('./a')",
    "const B = require('./b')",
    "const { helper } = require('./util')",
    'Object.assign(A.prototype, {})',
    'function wrap (fn) { return (...args) => helper(fn(...args)) }',
    'module.exports.A = A',
    'module.exports.B = B',
    'module.exports.wrapped = wrap(B)',
    '',
  ].join('\n');

  it('keeps the wanted exports, the side effects and what they reach, as written', () => {
    expect(keepExports(index, new Set(['A']))).toBe(
      ["'use strict'", "const A = require('./a')", 'Object.assign(A.prototype, {})', 'module.exports.A = A'].join('\n'),
    );
    expect(keepExports(index, new Set(['wrapped'])).split('\n')).toEqual([
      "'use strict'",
      "const A = require('./a')",
      "const B = require('./b')",
      "const { helper } = require('./util')",
      'Object.assign(A.prototype, {})',
      'function wrap (fn) { return (...args) => helper(fn(...args)) }',
      'module.exports.wrapped = wrap(B)',
    ]);
  });

  it('refuses a name the index does not export', () => {
    expect(() => keepExports(index, new Set(['C']))).toThrow(/exports no C/);
  });
});
