/**
 * One kind's list and watch, as client-go's reflector keeps it: start from a checkpoint (or list,
 * when there is none), watch from the last resourceVersion heard, watch again when the API server
 * closes the stream (its `timeoutSeconds`, a dropped connection), list again only after a 410. A
 * stream that says nothing at all for `stallMs` (no change, no bookmark, no close: a half-open
 * connection) is cut and watched again from where it was. Everything heard goes to the sink in
 * arrival order; a list hands each object on as `added`, then its resourceVersion as a bookmark.
 */
import type { WatchedKind } from '../../core/watch.js';
import type { WatchChangeType, WatchedObject, WatchSignal, WatchStream } from '../../ports/cluster-watch.js';
import { backoffMs } from './backoff.js';
import type { WatcherDeps } from './types.js';

export interface StreamSink {
  change(kind: WatchedKind, change: WatchChangeType, object: WatchedObject, resourceVersion: string): void;
  bookmark(kind: WatchedKind, resourceVersion: string): void;
  /** A list's objects follow (as `added`): a cache replaces what it held of the kind. */
  relisting?(kind: WatchedKind): void;
}

export interface StreamStats {
  relists: number;
  rewatches: number;
  stalls: number;
}

/** Retries of a list or watch that failed: 1 s, doubling, at most 10 s apart. */
const REOPEN = { initialMs: 1_000, maxMs: 10_000 };

export class KindStream {
  readonly stats: StreamStats = { relists: 0, rewatches: 0, stalls: 0 };
  /** True while a watch is open (not between a close and the next watch). */
  open = false;
  private stream: WatchStream | undefined;
  private from: string | undefined;
  private heardAt = 0;
  private generation = 0;
  private failures = 0;
  private stopped = false;
  private busy = false;

  constructor(
    readonly kind: WatchedKind,
    private readonly deps: Pick<WatcherDeps, 'cluster' | 'clock' | 'idle' | 'log' | 'settings'>,
    private readonly sink: StreamSink,
  ) {}

  /** Watches from `checkpoint`, or lists first when there is none. */
  start(checkpoint: string | undefined): Promise<void> {
    return checkpoint === undefined ? this.relist() : this.watchFrom(checkpoint);
  }

  /** Cuts a stream that has said nothing for `stallMs`, and watches again from where it was. */
  checkStall(now: number): void {
    if (this.busy || this.stopped || this.stream === undefined || now - this.heardAt < this.deps.settings.stallMs) return;
    this.stats.stalls += 1;
    this.deps.log.warn('watch stalled: no change, bookmark or close; watching again', { kind: this.kind, silentMs: now - this.heardAt });
    this.cut();
    void this.watchFrom(this.from ?? '');
  }

  stop(): void {
    this.stopped = true;
    this.cut();
  }

  private cut(): void {
    this.stream?.stop();
    this.stream = undefined;
    this.open = false;
    this.generation += 1;
  }

  private async relist(): Promise<void> {
    if (this.stopped) return;
    this.busy = true;
    this.stats.relists += 1;
    try {
      const start = await this.deps.cluster.listToWatch(this.kind);
      if (this.stopped) return;
      this.sink.relisting?.(this.kind);
      for (const object of start.objects) this.sink.change(this.kind, 'added', object, start.resourceVersion);
      this.sink.bookmark(this.kind, start.resourceVersion);
      this.busy = false;
      await this.watchFrom(start.resourceVersion);
    } catch (error) {
      this.busy = false;
      this.deps.log.warn('listing to watch failed; trying again', { kind: this.kind, error: String(error) });
      await this.later(() => this.relist());
    }
  }

  private async watchFrom(resourceVersion: string): Promise<void> {
    if (this.stopped) return;
    this.busy = true;
    this.from = resourceVersion;
    this.heardAt = this.deps.clock();
    const generation = ++this.generation;
    const stream = await this.deps.cluster.watch(this.kind, resourceVersion, (signal) => this.hear(generation, signal), {
      timeoutSeconds: this.deps.settings.watchTimeoutSeconds,
    });
    this.busy = false;
    // Stopped, or already ended (a terminal signal came before the stream was handed back).
    if (this.stopped || generation !== this.generation) return stream.stop();
    this.stream = stream;
    this.open = true;
  }

  private hear(generation: number, signal: WatchSignal): void {
    if (this.stopped || generation !== this.generation) return;
    this.heardAt = this.deps.clock();
    switch (signal.type) {
      case 'bookmark':
        this.from = signal.resourceVersion;
        this.sink.bookmark(this.kind, signal.resourceVersion);
        return;
      case 'expired':
        this.deps.log.info('watch expired (410): listing again', { kind: this.kind });
        this.cut();
        void this.relist();
        return;
      case 'closed':
        this.cut();
        this.stats.rewatches += 1;
        if (signal.error === undefined) {
          this.failures = 0;
          void this.watchFrom(this.from ?? '');
        } else {
          this.deps.log.warn('watch closed with an error; watching again', { kind: this.kind, error: signal.error });
          void this.later(() => this.watchFrom(this.from ?? ''));
        }
        return;
      default:
        this.failures = 0;
        this.from = signal.resourceVersion;
        this.sink.change(this.kind, signal.type, signal.object, signal.resourceVersion);
    }
  }

  private async later(again: () => Promise<void>): Promise<void> {
    this.failures += 1;
    this.busy = true;
    await this.deps.idle(backoffMs(this.failures, REOPEN));
    this.busy = false;
    await again();
  }
}
