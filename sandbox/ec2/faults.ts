/**
 * Fault injection: fail the next N calls of an action with an error code, or slow an action down.
 * (Sticky attaches and busy detaches live on the world: they shape attachments, not requests.)
 */
import { Ec2Error } from './protocol/errors.js';

export interface FailureSpec {
  /** An action name, or `*` for any action. */
  action: string;
  count: number;
  code: string;
  message?: string;
  /** HTTP status; 400 for client errors unless given (503 for RequestLimitExceeded). */
  status?: number;
}

interface PendingFailure {
  remaining: number;
  error: Ec2Error;
}

function defaultStatus(code: string): number {
  if (code === 'RequestLimitExceeded' || code === 'Unavailable' || code === 'ServiceUnavailable') return 503;
  if (code === 'InternalError' || code === 'InternalFailure') return 500;
  return 400;
}

export class Faults {
  private readonly failures = new Map<string, PendingFailure[]>();
  private readonly latency = new Map<string, number>();

  failNext(spec: FailureSpec): void {
    if (!Number.isInteger(spec.count) || spec.count < 1) throw new RangeError(`count must be a positive integer, got ${spec.count}`);
    const error = new Ec2Error(spec.code, spec.message ?? `Injected ${spec.code}`, spec.status ?? defaultStatus(spec.code));
    const queue = this.failures.get(spec.action) ?? [];
    queue.push({ remaining: spec.count, error });
    this.failures.set(spec.action, queue);
  }

  /** Extra milliseconds before answering `action` (or `*`: every action). 0 removes it. */
  setLatency(action: string, ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`latency must be >= 0, got ${ms}`);
    if (ms === 0) this.latency.delete(action);
    else this.latency.set(action, ms);
  }

  latencyFor(action: string): number {
    return (this.latency.get(action) ?? 0) + (this.latency.get('*') ?? 0);
  }

  /** The injected error for this call of `action`, if one is pending (consumes it). */
  takeFailure(action: string): Ec2Error | undefined {
    for (const key of [action, '*']) {
      const queue = this.failures.get(key);
      const head = queue?.[0];
      if (!queue || !head) continue;
      head.remaining -= 1;
      if (head.remaining === 0) queue.shift();
      return head.error;
    }
    return undefined;
  }

  clear(): void {
    this.failures.clear();
    this.latency.clear();
  }
}
