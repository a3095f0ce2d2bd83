/**
 * kcm's operation bookkeeping (nestedpendingoperations with goroutinemap's exponential backoff):
 * one operation at a time per (volume, node), attach or detach; a failed one may not run again
 * before its backoff ends: 500 ms, doubling, capped at 2 min 2 s, reset by a success.
 */
import type { VolumeSpec } from './actual.js';

const INITIAL_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 2 * 60_000 + 2_000;

export interface PendingOperation {
  kind: 'attach' | 'detach';
  volume: VolumeSpec;
  startedAt: number;
}

interface Backoff {
  durationMs: number;
  notBefore: number;
  lastError: string;
}

export class Operations {
  private readonly pending = new Map<string, PendingOperation>();
  private readonly backoffs = new Map<string, Backoff>();

  /** IsOperationPending, or still backing off from the last failure. */
  busy(key: string, now: number): boolean {
    return this.pending.has(key) || (this.backoffs.get(key)?.notBefore ?? 0) > now;
  }

  /** IsOperationPending(volume, "", ""): any running operation on the volume, on any node. */
  pendingOnVolume(uniqueName: string): boolean {
    return [...this.pending.values()].some((op) => op.volume.uniqueName === uniqueName);
  }

  start(key: string, operation: PendingOperation): void {
    this.pending.set(key, operation);
  }

  inFlight(): [string, PendingOperation][] {
    return [...this.pending.entries()];
  }

  succeed(key: string): void {
    this.pending.delete(key);
    this.backoffs.delete(key);
  }

  fail(key: string, now: number, error: string): void {
    this.pending.delete(key);
    const previous = this.backoffs.get(key);
    const durationMs = previous ? Math.min(previous.durationMs * 2, MAX_BACKOFF_MS) : INITIAL_BACKOFF_MS;
    this.backoffs.set(key, { durationMs, notBefore: now + durationMs, lastError: error });
  }

  lastError(key: string): string | undefined {
    return this.backoffs.get(key)?.lastError;
  }
}
