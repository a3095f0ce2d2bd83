/**
 * A watcher over fakes: the API server's watches played by the test (FakeCluster's `watches`), the
 * lease and checkpoints in memory, targeted passes that finish when the test says, and time that moves
 * only with `tick`. A small mode asks for a pod's pass when the pod is annotated `act`.
 */
import type { KubePod } from '../../../lambda/core/kube.js';
import type { WatchSignal } from '../../../lambda/ports/cluster-watch.js';
import { DEFAULT_WATCHER_SETTINGS } from '../../../lambda/reconcile/watch/settings.js';
import type { Reaction, WatchMode, WatcherSettings } from '../../../lambda/reconcile/watch/types.js';
import { runWatcher } from '../../../lambda/reconcile/watch/watcher.js';
import type { PassReport, Target } from '../../../lambda/reconcile/pass/types.js';
import { snapshot, T0 } from '../../core/builders.js';
import { FakeCluster, FakeWatcherStore } from '../../support/fake-ports.js';
import { quietPassReport } from '../../support/pass-report.js';

export const testMode: WatchMode = {
  kinds: ['pods'],
  targetOf: (_kind, change, object) => ({
    target: { kind: 'pod', namespace: object.metadata.namespace ?? 'default', name: object.metadata.name ?? '' },
    acts: change !== 'deleted' && object.metadata.annotations?.act !== undefined,
  }),
};

/** A pod: `act` makes the mode ask for its pass. */
export function actingPod(name: string, resourceVersion: string, act = true): KubePod {
  return { metadata: { name, namespace: 'default', resourceVersion, ...(act ? { annotations: { act: 'yes' } } : {}) } };
}

/** A pod change as the API server streams it. */
export function podChange(name: string, resourceVersion: string, act = true): WatchSignal {
  return { type: 'modified', object: actingPod(name, resourceVersion, act), resourceVersion };
}

export function passReport(o: { converged?: boolean; detached?: boolean } = {}): PassReport {
  const detach = { kind: 'detach' as const, volumeId: 'vol-1', nodeName: 'node-a', outcome: 'ok' as const, detail: '' };
  return quietPassReport({
    startedAt: T0,
    verified: true,
    results: o.detached ? [detach] : [],
    converged: o.converged ?? true,
  });
}

interface Call {
  target: Target;
  finish: (report?: PassReport) => void;
  fail: (error: Error) => void;
}

export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
}

export function watcherHarness(o: { settings?: Partial<WatcherSettings>; lifetimeMs?: number; mode?: WatchMode } = {}) {
  let now = T0;
  let wake: (() => void) | undefined;
  const cluster = new FakeCluster(snapshot({}));
  const watchers = new FakeWatcherStore();
  const calls: Call[] = [];
  const reactions: Reaction[] = [];
  const logs: string[] = [];
  const log = (level: string) => (message: string) => void logs.push(`${level} ${message}`);
  const abort = new AbortController();
  const endsAt = now + (o.lifetimeMs ?? 300_000);
  let ids = 0;
  const run = () =>
    runWatcher(
      {
        cluster,
        watchers,
        clock: () => now,
        idle: () => new Promise<void>((resolve) => (wake = resolve)),
        newId: () => `w${++ids}`,
        log: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
        runTarget: (target) =>
          new Promise<PassReport>((resolve, reject) =>
            calls.push({ target, finish: (report = passReport()) => resolve(report), fail: reject }),
          ),
        settings: { ...DEFAULT_WATCHER_SETTINGS, ...o.settings },
        onReaction: (reaction) => reactions.push(reaction),
      },
      o.mode ?? testMode,
      { deadline: endsAt - 10_000, endsAt, signal: abort.signal },
    );
  return {
    cluster,
    watchers,
    calls,
    reactions,
    logs,
    run,
    now: () => now,
    /** Moves time on and lets the watcher run its round of checks. */
    async tick(ms = DEFAULT_WATCHER_SETTINGS.tickMs) {
      now += ms;
      await flush();
      const resume = wake;
      wake = undefined;
      resume?.();
      await flush();
    },
    /** The watcher's deadline, as middy's early timeout aborts it. */
    async end() {
      abort.abort();
      const resume = wake;
      wake = undefined;
      resume?.();
      await flush();
    },
    /** The newest watch the watcher opened. */
    watch() {
      const watch = cluster.watches.at(-1);
      if (watch === undefined) throw new Error('no watch opened');
      return watch;
    },
  };
}
