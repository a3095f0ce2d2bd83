import { describe, expect, it } from 'vitest';
import { MutantIds, mutantId, mutantKey, reportedRange } from '../../scripts/mutant-id.ts';

describe("a mutant's id, shared by the mutation script and the Stryker runner", () => {
  const reported = { start: { line: 17, column: 7 }, end: { line: 17, column: 42 } };
  const instrumented = { start: { line: 16, column: 6 }, end: { line: 16, column: 41 } };

  it('names the same mutant from the report (counting from 1) and from the instrumenter (counting from 0)', () => {
    expect(mutantKey(reportedRange(instrumented), 'ConditionalExpression', 'true')).toBe(
      mutantKey(reported, 'ConditionalExpression', 'true'),
    );
  });

  it('finds a sampled mutant by its path in the sandbox, and no other', () => {
    const key = mutantKey(reported, 'ConditionalExpression', 'true');
    const ids = new MutantIds([mutantId('lambda/reconcile/pass.ts', key)]);

    expect(ids.has('/tmp/.stryker-tmp/sandbox-1/lambda/reconcile/pass.ts', key)).toBe(true);
    expect(ids.has('/tmp/.stryker-tmp/sandbox-1/lambda/reconcile/attacher/pass.ts', key)).toBe(false);
    expect(ids.has('/tmp/.stryker-tmp/sandbox-1/lambda/reconcile/full-pass.ts', key)).toBe(false);
    expect(ids.has('/tmp/.stryker-tmp/sandbox-1/lambda/reconcile/pass.ts', mutantKey(reported, 'ConditionalExpression', 'false'))).toBe(
      false,
    );
  });
});
