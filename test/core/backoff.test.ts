import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, inBackoff, nextBackoff } from '../../lambda/core/backoff.js';

describe('backoff (500 ms doubling, capped at 2 min 2 s)', () => {
  it.each([
    [1, 500],
    [2, 1_000],
    [3, 2_000],
    [8, 64_000],
    [9, 122_000],
    [20, 122_000],
  ])('after %i failures waits %i ms', (failures, delay) => {
    let b = undefined;
    for (let i = 0; i < failures; i++) b = nextBackoff(b, 'boom', 1_000);
    expect(b).toEqual({ failures, notBefore: 1_000 + delay, lastError: 'boom' });
  });

  it('blocks until notBefore, then allows', () => {
    const b = nextBackoff(undefined, 'x', 0, DEFAULT_BACKOFF);
    expect(inBackoff(b, 499)).toBe(true);
    expect(inBackoff(b, 500)).toBe(false);
    expect(inBackoff(undefined, 0)).toBe(false);
  });
});
