/** Calls by action (and how many were throttled or failed by injection), for tests and benchmarks. */
export interface CounterSnapshot {
  calls: Record<string, number>;
  throttled: Record<string, number>;
  injected: Record<string, number>;
  total: number;
}

export interface RecordedRequest {
  action: string;
  params: Record<string, string>;
}

/** How many recent requests are kept for inspection (a ring, so benchmarks stay bounded). */
const RECENT_LIMIT = 1_000;

export class Counters {
  private calls = new Map<string, number>();
  private throttled = new Map<string, number>();
  private injected = new Map<string, number>();
  private recent: RecordedRequest[] = [];

  recordCall(action: string, params: ReadonlyMap<string, string>): void {
    bump(this.calls, action);
    this.recent.push({ action, params: Object.fromEntries(params) });
    if (this.recent.length > RECENT_LIMIT) this.recent.shift();
  }

  recordThrottled(action: string): void {
    bump(this.throttled, action);
  }

  recordInjected(action: string): void {
    bump(this.injected, action);
  }

  snapshot(): CounterSnapshot {
    const calls = Object.fromEntries(this.calls);
    const total = [...this.calls.values()].reduce((sum, n) => sum + n, 0);
    return { calls, throttled: Object.fromEntries(this.throttled), injected: Object.fromEntries(this.injected), total };
  }

  /** The most recent requests of `action` (all actions when omitted), oldest first. */
  requests(action?: string): RecordedRequest[] {
    return this.recent.filter((request) => action === undefined || request.action === action);
  }

  reset(): void {
    this.calls.clear();
    this.throttled.clear();
    this.injected.clear();
    this.recent = [];
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
