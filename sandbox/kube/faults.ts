/**
 * Fault injection: fail the next N matching requests, slow requests down, or break the k-th
 * page of a paginated list (a 500, or an expired continue token answered with 410).
 * A string path matches the request path exactly; a RegExp is tested against path and query.
 */
import { pageOf } from './continue-token.js';
import { ApiError, errors, reasonForCode } from './status.js';

export interface RequestMatch {
  method?: string;
  path: string | RegExp;
}

export interface PaginationBreak {
  page: number;
  mode: 'error' | 'expired';
  /** How many times the break fires before the list works again (default 1). */
  times?: number;
}

interface Failure {
  match: RequestMatch;
  remaining: number;
  code: number;
  reason: string;
}
interface Latency {
  match?: RequestMatch;
  ms: number;
}
interface Break {
  match: RequestMatch;
  page: number;
  mode: 'error' | 'expired';
  remaining: number;
}

function matches(match: RequestMatch, method: string, url: URL): boolean {
  if (match.method && match.method.toUpperCase() !== method.toUpperCase()) return false;
  return typeof match.path === 'string' ? url.pathname === match.path : match.path.test(url.pathname + url.search);
}

function sameMatch(a: RequestMatch | undefined, b: RequestMatch | undefined): boolean {
  if (!a || !b) return a === b;
  return (a.method ?? '').toUpperCase() === (b.method ?? '').toUpperCase() && String(a.path) === String(b.path);
}

export class Faults {
  private failures: Failure[] = [];
  private latencies: Latency[] = [];
  private breaks: Break[] = [];

  failNext(match: RequestMatch, count: number, code: number, reason?: string): void {
    this.failures.push({ match, remaining: count, code, reason: reason ?? reasonForCode(code) });
  }

  /** Adds `ms` to every matching request (to all without `match`); replaces the rule for the same match; 0 removes it. */
  latency(ms: number, match?: RequestMatch): void {
    this.latencies = this.latencies.filter((l) => !sameMatch(l.match, match));
    if (ms > 0) this.latencies.push({ ms, ...(match ? { match } : {}) });
  }

  breakPagination(match: { path: string | RegExp }, options: PaginationBreak): void {
    this.breaks.push({ match: { path: match.path }, page: options.page, mode: options.mode, remaining: options.times ?? 1 });
  }

  clear(): void {
    this.failures = [];
    this.latencies = [];
    this.breaks = [];
  }

  delayFor(method: string, url: URL): number {
    return this.latencies.filter((l) => !l.match || matches(l.match, method, url)).reduce((max, l) => Math.max(max, l.ms), 0);
  }

  /** The injected error for this request, if a rule fires; consumes one use of that rule. */
  failureFor(method: string, url: URL, verb: string): ApiError | undefined {
    const failure = this.failures.find((f) => f.remaining > 0 && matches(f.match, method, url));
    if (failure) {
      failure.remaining--;
      const details = failure.code === 429 || failure.code === 503 ? { retryAfterSeconds: 1 } : undefined;
      return new ApiError(failure.code, failure.reason, `injected fault: ${failure.reason}`, details);
    }
    if (verb !== 'list') return undefined;
    const page = pageOf(url);
    const broken = this.breaks.find((b) => b.remaining > 0 && b.page === page && matches(b.match, method, url));
    if (!broken) return undefined;
    broken.remaining--;
    return broken.mode === 'expired' ? errors.expired() : errors.internal(`injected fault: page ${page} of the list failed`);
  }
}
