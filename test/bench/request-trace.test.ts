import { describe, expect, it } from 'vitest';
import { sequentialRoundTrips, type TracedRequest } from '../../bench/request-trace.js';

/** A request from `start` to `end` ms. */
const r = (start: number, end: number): TracedRequest => ({ service: 'Kubernetes', label: `GET /${start}`, startMs: start, endMs: end });

describe('sequential round trips of a traced path', () => {
  it.each([
    ['nothing sent', [], 0],
    ['one request', [r(0, 20)], 1],
    ['three one after another', [r(0, 20), r(21, 41), r(42, 62)], 3],
    ['ten in flight together count once', Array.from({ length: 10 }, (_, i) => r(i, 20 + i)), 1],
    ['a fan-out between two single requests', [r(0, 20), r(21, 41), r(22, 43), r(23, 44), r(45, 65)], 3],
    ['a long request beside a chain of two: the chain counts', [r(0, 60), r(1, 21), r(22, 42)], 2],
  ])('%s: %i', (_case, requests, expected) => {
    expect(sequentialRoundTrips(requests)).toBe(expected);
  });
});
