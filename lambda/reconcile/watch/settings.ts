/**
 * The watcher's pace, one set for every deployment. Watches are asked to last 30 s: the API server
 * sends a bookmark 2 s before the end and closes the stream, so a live stream says something at
 * least every 30 s, and one silent for 45 s has stalled (client-node itself cuts a stream silent
 * for 30 s of real time). Re-watching every 30 s costs the API server one cheap request per kind,
 * served from its watch cache.
 */
import { WATCHER_LEASE_RULES } from '../../core/watch.js';
import type { WatcherSettings } from './types.js';

export const DEFAULT_WATCHER_SETTINGS: WatcherSettings = {
  concurrency: 8,
  watchTimeoutSeconds: 30,
  stallMs: 45_000,
  heartbeatMs: 10_000,
  checkpointMs: 5_000,
  tickMs: 1_000,
  minPassMs: 5_000,
  // kcm's operation backoff starts at 500 ms and doubles; a target is retried for about a minute, then left to the full pass.
  retry: { initialMs: 500, maxMs: 30_000, failures: 5, followUps: 7 },
  lease: WATCHER_LEASE_RULES,
};
