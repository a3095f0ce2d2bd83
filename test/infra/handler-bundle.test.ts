/**
 * The SDK schema rewrite of the handler build: computed trait keys naming a string constant become
 * that string, so esbuild may drop unused shapes; anything else is left as it was.
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { literalSchemaKeys } from '../../infra/handler-bundle.js';

const schemas = (body: string) => ['const _xN = "xmlName";', 'const _eQN = "ec2QueryName";', 'const _p = "__proto__";', body].join('\n');

describe('literalSchemaKeys', () => {
  it.each([
    ['a key naming a string constant', '[1, { [_xN]: _m }]', '[1, { "xmlName": _m }]'],
    ['several keys in one object', '{ [_eQN]: `Min`, [_xN]: _m }', '{ "ec2QueryName": `Min`, "xmlName": _m }'],
    ['a key naming no constant of the module', '{ [_other]: 1 }', '{ [_other]: 1 }'],
    ['a key naming "__proto__" (a literal would set the prototype)', '{ [_p]: 1 }', '{ [_p]: 1 }'],
    ['an array index, not a key', 'x[_xN]', 'x[_xN]'],
  ])('%s', (_case, body, expected) => {
    expect(literalSchemaKeys(schemas(body)).split('\n').at(-1)).toBe(expected);
  });

  it('builds the same objects', () => {
    const evaluate = (source: string) => JSON.stringify(runInNewContext(`${source}\n[1, { [_xN]: 1, [_eQN]: 2 }]`));
    const source = schemas('');
    expect(evaluate(literalSchemaKeys(source))).toBe('[1,{"xmlName":1,"ec2QueryName":2}]');
    expect(evaluate(literalSchemaKeys(source))).toBe(evaluate(source));
  });
});
