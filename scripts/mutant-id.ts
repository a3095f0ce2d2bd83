/**
 * A mutant's id, shared by scripts/mutation.ts (which reads Stryker's reports and draws the sample)
 * and scripts/stryker-vitest5.ts (which is handed Stryker's instrumented mutants): both must build
 * the same text, or a sampled mutant would silently go untested.
 */

/** A source position as Stryker's JSON report gives it: line and column both from 1. */
export interface ReportedRange {
  start: { line: number; column: number };
  end: { line: number; column: number };
}

/** Location, mutator and replacement: the same in every report of the same source text. */
export function mutantKey(location: ReportedRange, mutatorName: string, replacement: string | undefined): string {
  const { start, end } = location;
  return `${start.line}:${start.column}-${end.line}:${end.column} ${mutatorName} ${replacement ?? ''}`;
}

/** The file (relative to the project) and the key. */
export const mutantId = (file: string, key: string): string => `${file} ${key}`;

/** Stryker's instrumenter counts lines and columns from 0; its reports from 1. */
export function reportedRange(instrumented: ReportedRange): ReportedRange {
  const { start, end } = instrumented;
  return { start: { line: start.line + 1, column: start.column + 1 }, end: { line: end.line + 1, column: end.column + 1 } };
}

/**
 * Sampled ids, looked up by key: the runner knows a mutant's absolute path in Stryker's sandbox,
 * so the file part is matched as a path suffix among the few files sharing that key.
 */
export class MutantIds {
  private readonly filesByKey = new Map<string, string[]>();

  constructor(ids: Iterable<string>) {
    for (const id of ids) {
      const space = id.indexOf(' ');
      const key = id.slice(space + 1);
      this.filesByKey.set(key, [...(this.filesByKey.get(key) ?? []), id.slice(0, space)]);
    }
  }

  has(absolutePath: string, key: string): boolean {
    return (this.filesByKey.get(key) ?? []).some((file) => absolutePath.endsWith(`/${file}`));
  }
}
