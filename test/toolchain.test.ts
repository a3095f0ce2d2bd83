import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('toolchain', () => {
  it('runs the tests on the Node major the Lambda runtime uses', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { devDependencies: Record<string, string> };
    const wanted = /(\d+)/.exec(pkg.devDependencies.node ?? '')?.[1];
    expect(process.versions.node.split('.')[0]).toBe(wanted);
  });
});
