/**
 * Saving how far each kind's changes are handled (prefix.ts), so the next watcher resumes there:
 * at most every `checkpointMs`, and whenever the watcher ends. A failed save is tried again at the
 * next round; the checkpoint in the store only lags, which costs the next watcher some replay.
 */
import type { WatchedKind } from '../../core/watch.js';
import type { HandledPrefix } from './prefix.js';
import type { WatcherDeps } from './types.js';

export class Checkpoints {
  private readonly through = new Map<WatchedKind, string>();
  private readonly saved = new Map<WatchedKind, string>();
  private savedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly deps: Pick<WatcherDeps, 'watchers' | 'clock' | 'log' | 'settings'>,
    private readonly prefixes: ReadonlyMap<WatchedKind, HandledPrefix>,
  ) {}

  async save(force: boolean): Promise<void> {
    for (const [kind, prefix] of this.prefixes) {
      const moved = prefix.advance();
      if (moved !== undefined) this.through.set(kind, moved);
    }
    const now = this.deps.clock();
    if (!force && now - this.savedAt < this.deps.settings.checkpointMs) return;
    this.savedAt = now;
    for (const [kind, resourceVersion] of this.through) {
      if (this.saved.get(kind) === resourceVersion) continue;
      try {
        await this.deps.watchers.saveCheckpoint(kind, { resourceVersion, savedAt: now });
        this.saved.set(kind, resourceVersion);
      } catch (error) {
        this.deps.log.warn('saving a watch checkpoint failed', { kind, error: String(error) });
      }
    }
  }
}
