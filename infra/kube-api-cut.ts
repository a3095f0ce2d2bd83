/**
 * client-node's generated API classes in the handler build, cut to the operations the controller
 * calls. Each API class is four generated classes (the request factory and the response processor
 * in apis/, the Observable and the object-parameter APIs in types/), every one with a method per
 * operation of its group: CoreV1Api alone has hundreds, ~1 MB of each bundle V8 must parse at init
 * for the nine operations we call. Which operations those are is read from the controller's code
 * (every `.name(` under lambda/ that names an operation of an imported API class), never from a
 * list kept by hand; test/infra/kube-models.test.ts checks the bundled classes still have them.
 *
 * The cut is by lines, on the layout tsc gives the generated classes (a member is its doc comment,
 * its header at four spaces and its body to the closing brace at four spaces); any other line
 * where a member should start fails the build instead of shipping a class cut wrong.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './contracts.js';

/** The operations of a generated API class file: its request factory's methods. */
export function operationsOf(apiSource: string): string[] {
  return [...apiSource.matchAll(/^ {4}async (\w+)\(/gm)].map((m) => m[1] as string).filter((name) => !name.endsWith('WithHttpInfo'));
}

/** Every operation of `operations` some source file under `dir` calls as a method (`.name(`). */
export function operationsCalled(operations: ReadonlySet<string>, dir = path.join(REPO_ROOT, 'lambda')): Set<string> {
  const called = new Set<string>();
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  for (const file of files) {
    for (const [, name] of readFileSync(path.join(dir, file), 'utf8').matchAll(/\.(\w+)\s*\(/g)) {
      if (operations.has(name as string)) called.add(name as string);
    }
  }
  return called;
}

/** Whether a member of a generated API class serves one of `operations` (itself, or its `…WithHttpInfo`). */
export const servesOneOf = (operations: ReadonlySet<string>) => (member: string) =>
  operations.has(member) || operations.has(member.replace(/WithHttpInfo$/, ''));

/** `source` with the members of class `className` that `keep` refuses taken out (the constructor stays). */
export function keepMembers(source: string, className: string, keep: (member: string) => boolean): string {
  const lines = source.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`export class ${className} `));
  const end = lines.findIndex((line, i) => i > start && line === '}');
  if (start < 0 || end < 0) throw new Error(`client-node: no class ${className} to cut; see infra/kube-api-cut.ts`);
  const kept = lines.slice(0, start + 1);
  for (let i = start + 1; i < end;) {
    let header = i;
    if (lines[header]?.trim() === '') {
      kept.push('');
      i++;
      continue;
    }
    if (lines[header]?.trimStart().startsWith('/**')) {
      while (!(lines[header] as string).includes('*/')) header++;
      header++;
    }
    const member = /^ {4}(?:async )?(\w+)\(.*\{$/.exec(lines[header] ?? '')?.[1];
    if (member === undefined)
      throw new Error(`client-node: ${className} line ${header + 1} is not a member as the cut reads them: ${lines[header]}`);
    let close = header;
    while (close < end && lines[close] !== '    }') close++;
    if (close === end) throw new Error(`client-node: ${className}.${member} has no closing brace at four spaces`);
    if (member === 'constructor' || keep(member)) kept.push(...lines.slice(i, close + 1));
    i = close + 1;
  }
  kept.push(...lines.slice(end));
  return kept.join('\n');
}
