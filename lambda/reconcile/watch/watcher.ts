/**
 * The watcher (DESIGN §9): one invocation that lists and watches what its mode needs and runs the
 * targeted pass for each change, until its deadline or until its successor watches. It joins the
 * lease first (at most two watchers live: a new one only within the last minute of the current
 * one, or once that one went silent), resumes each kind from the checkpoint in the store (lists
 * only when there is none, or after a 410), says it is alive every `heartbeatMs`, saves how far
 * it has handled every change at most every `checkpointMs`, and when it ends lets its passes
 * finish, saves its checkpoints and leaves the lease. Overlapping watchers are safe: every pass
 * goes through the store.
 */
import type { WatchCheckpoint, WatchedKind } from '../../core/watch.js';
import { Deadline } from '../pass/deadline.js';
import type { Budget } from '../pass/types.js';
import { WatchCache } from './cache.js';
import { Checkpoints } from './checkpoints.js';
import { Dispatcher } from './dispatcher.js';
import { beatWatchers, joinWatchers, leaveWatchers } from './lease.js';
import { HandledPrefix } from './prefix.js';
import { KindStream, type StreamSink } from './stream.js';
import type { WatchMode, WatcherDeps, WatcherReport } from './types.js';

interface Running {
  dispatcher: Dispatcher;
  streams: KindStream[];
  checkpoints: Checkpoints;
  counts: { changes: number; actionable: number };
  cache: WatchCache;
}

export async function runWatcher(deps: WatcherDeps, mode: WatchMode, budget: Budget): Promise<WatcherReport> {
  const watcherId = deps.newId();
  const startedAt = deps.clock();
  const { settings } = deps;
  const joined = await joinWatchers(deps.watchers, watcherId, startedAt, budget.endsAt ?? budget.deadline, settings.lease);
  if (!joined.joined) {
    deps.log.info('watcher not started', { watcherId, why: joined.why });
    return reportOf(watcherId, false, joined.why, 0);
  }
  deps.log.info('watcher started', { watcherId, kinds: mode.kinds });
  const deadline = new Deadline(budget, deps.clock, 0);
  const running = await startStreams(deps, mode, budget, () => deadline.canStart(settings.minPassMs));
  const why = await watchUntilDone(deps, watcherId, running, deadline);
  for (const stream of running.streams) stream.stop();
  await running.dispatcher.drain();
  await running.checkpoints.save(true);
  await leaveWatchers(deps.watchers, watcherId).catch((error: unknown) =>
    deps.log.warn('leaving the watcher lease failed', { error: String(error) }),
  );
  const report = reportOf(watcherId, true, why, deps.clock() - startedAt, running);
  deps.log.info('watcher ended', { ...report, owed: running.dispatcher.owed() });
  return report;
}

/** The cached kinds' streams: listed at every start, their changes kept in `cache` and nothing more. */
function cacheStreams(deps: WatcherDeps, cache: WatchCache): KindStream[] {
  const sink: StreamSink = {
    change: (kind, change, object) => cache.apply(kind, change, object),
    bookmark: () => undefined,
    relisting: (kind) => cache.relist(kind),
  };
  return cache.kinds.map((kind) => new KindStream(kind, deps, sink));
}

async function startStreams(deps: WatcherDeps, mode: WatchMode, budget: Budget, mayStart: () => boolean): Promise<Running> {
  const cache = new WatchCache(mode.cached ?? []);
  const cached = cacheStreams(deps, cache);
  // The caches fill beside the checkpoint read and the watched kinds' start, and are not waited for
  // (a list that keeps failing must not hold the watcher): a pass before its kind is listed reads it live.
  for (const stream of cached) void stream.start(undefined);
  const { withCache } = mode;
  const passDeps: WatcherDeps =
    withCache === undefined ? deps : { ...deps, runTarget: (target, budget) => deps.runTarget(withCache(target, cache), budget) };
  const dispatcher = new Dispatcher(passDeps, budget, mayStart);
  const prefixes = new Map<WatchedKind, HandledPrefix>(mode.kinds.map((kind) => [kind, new HandledPrefix()]));
  const prefix = (kind: WatchedKind) => prefixes.get(kind) as HandledPrefix;
  const counts = { changes: 0, actionable: 0 };
  const sink: StreamSink = {
    change(kind, change, object, resourceVersion) {
      counts.changes += 1;
      const asked = mode.targetOf(kind, change, object);
      const mark = prefix(kind).add(resourceVersion, asked?.acts !== true);
      if (asked === undefined) return;
      if (!asked.acts) return dispatcher.settle(asked.target);
      counts.actionable += 1;
      dispatcher.add(asked.target, mark);
    },
    bookmark: (kind, resourceVersion) => void prefix(kind).add(resourceVersion, true),
  };
  const saved: Partial<Record<WatchedKind, WatchCheckpoint>> = await deps.watchers.readCheckpoints(mode.kinds).catch((error: unknown) => {
    deps.log.warn('reading the watch checkpoints failed; listing instead', { error: String(error) });
    return {};
  });
  const streams = mode.kinds.map((kind) => new KindStream(kind, deps, sink));
  await Promise.all([...streams.map((stream) => stream.start(saved[stream.kind]?.resourceVersion))]);
  return { dispatcher, streams: [...cached, ...streams], checkpoints: new Checkpoints(deps, prefixes), counts, cache };
}

/** The watcher's round of checks, every `tickMs`, until its deadline or a successor takes over. */
async function watchUntilDone(deps: WatcherDeps, watcherId: string, running: Running, deadline: Deadline): Promise<string> {
  const { settings } = deps;
  let lastBeat = Number.NEGATIVE_INFINITY;
  for (;;) {
    const now = deps.clock();
    if (!deadline.canStart(settings.minPassMs)) return 'deadline';
    if (now - lastBeat >= settings.heartbeatMs) {
      lastBeat = now;
      const watching = running.streams.every((stream) => stream.open);
      const beat = await beatWatchers(deps.watchers, watcherId, now, watching, settings.lease).catch((error: unknown) => {
        deps.log.warn('watcher heartbeat failed', { error: String(error) });
        return { stay: true, why: '' };
      });
      if (!beat.stay) return beat.why;
    }
    for (const stream of running.streams) stream.checkStall(now);
    running.dispatcher.pump();
    await running.checkpoints.save(false);
    await deps.idle(settings.tickMs);
  }
}

function reportOf(watcherId: string, joined: boolean, why: string, durationMs: number, running?: Running): WatcherReport {
  const waits = [...(running?.dispatcher.stats.queueWaits ?? [])].sort((a, b) => a - b);
  const streamStats = (key: 'relists' | 'rewatches' | 'stalls', cached?: boolean) =>
    (running?.streams ?? [])
      .filter((s) => cached === undefined || running?.cache.kinds.includes(s.kind) === cached)
      .reduce((sum, s) => sum + s.stats[key], 0);
  const stats = running?.dispatcher.stats;
  return {
    watcherId,
    joined,
    why,
    durationMs,
    changes: running?.counts.changes ?? 0,
    actionable: running?.counts.actionable ?? 0,
    passes: stats?.passes ?? 0,
    failedPasses: stats?.failedPasses ?? 0,
    abandoned: stats?.abandoned ?? 0,
    relists: streamStats('relists', false),
    cacheLists: streamStats('relists', true),
    cachedObjects: running?.cache.size() ?? 0,
    rewatches: streamStats('rewatches'),
    stalls: streamStats('stalls'),
    queueWaitMs: { p50: waits[Math.floor(waits.length / 2)] ?? 0, max: waits.at(-1) ?? 0 },
  };
}
