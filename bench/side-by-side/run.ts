/**
 * Issue 29's side-by-side figures, in one run: each implementation on a fresh stage with the same
 * EC2 latency model, kcm, kubelets and added round trip.
 * - attacher mode, churn: VolumeAttachment created → AttachVolume received by EC2, and deleting →
 *   DetachVolume, per change (p50, p99);
 * - attacher mode, a ten-pod StatefulSet rolling update where every pod moves node: total story time;
 * - controller mode, churn: pod bound → AttachVolume; the kubelet's unmount (volumesInUse letting the
 *   volume go) → DetachVolume, and pod deleted → DetachVolume.
 */
import { WATCHER_KUBE_API_ENV } from '../../infra/function-sizes.js';
import type { WorldVolume } from '../../sandbox/world.js';
import { startImplementation, type Implementation } from './implementations.js';
import { churn, rollingUpdate, statefulSet, type Skips } from './scenes.js';
import { startStage, type Stage, type StageOptions } from './stage.js';

export interface SideBySideOptions {
  /** Pods churned per implementation (each one attach and one detach). */
  changes: number;
  /** Pods of the StatefulSet. */
  pods: number;
  rttMs: number;
  attachMs: number;
  detachMs: number;
  unmountMs: number;
  /** Implementations of attacher mode to run (controller mode has no sidecar). */
  attacher: Implementation[];
  controller: Implementation[];
  log: (line: string) => void;
}

export interface Percentiles {
  p50: number;
  p99: number;
  samples: number;
}

export interface LatencyRow {
  mode: 'attacher' | 'controller';
  implementation: Implementation;
  attach: Percentiles;
  detach: Percentiles;
  /** Controller mode: pod deleted → DetachVolume (the unmount in between). */
  deletedToDetach?: Percentiles;
  skips: Skips;
  /** Volumes not detached within the churn's cap of story time (left out of the detach figures). */
  unfinished: number;
}

export interface RollingRow {
  mode: 'attacher' | 'controller';
  implementation: Implementation;
  totalMs: number;
  perPodMs: number[];
  skips: Skips;
  /** Where the update stopped, when a pod did not go or run within the cap. */
  unfinished?: string;
}

export interface SideBySideFigures {
  settings: Omit<SideBySideOptions, 'log'>;
  latency: LatencyRow[];
  rolling: RollingRow[];
}

/** Nearest-rank percentiles of the samples (ms). */
export function percentiles(samples: readonly number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
  return { p50: at(50), p99: at(99), samples: sorted.length };
}

/** `to - from` for every volume both name. */
function spans(from: ReadonlyMap<string, number>, to: ReadonlyMap<string, number>): number[] {
  return [...from].flatMap(([volume, at]) => (to.has(volume) ? [(to.get(volume) as number) - at] : []));
}

const NODES = 20;

async function onStage<T>(
  options: SideBySideOptions,
  mode: StageOptions['mode'],
  volumes: number,
  implementation: Implementation,
  play: (stage: Stage, made: WorldVolume[], running: ReturnType<typeof startImplementation>) => Promise<T>,
): Promise<T> {
  // Each implementation with its deployed settings: the watcher function's client limits are the stack's.
  const env = implementation === 'watcher' ? { env: WATCHER_KUBE_API_ENV } : {};
  const stage = await startStage({ mode, nodes: NODES, ...options, ...env });
  try {
    const made: WorldVolume[] = [];
    for (let i = 0; i < volumes; i++) made.push(await stage.world.createVolume({ name: `data-${i}` }));
    const running = startImplementation(stage, implementation);
    try {
      // The watcher lists first, the sidecar's informer too: changes start once both could see them.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      stage.slowDown();
      return await play(stage, made, running);
    } finally {
      await running.stop();
    }
  } finally {
    await stage.stop();
  }
}

function describe(p: Percentiles): string {
  return `p50 ${p.p50.toFixed(0)} ms, p99 ${p.p99.toFixed(0)} ms (${p.samples})`;
}

export async function measureSideBySide(options: SideBySideOptions): Promise<SideBySideFigures> {
  const { log, ...settings } = options;
  const figures: SideBySideFigures = { settings, latency: [], rolling: [] };
  const churnOptions = { spacingMs: 500, lifetimeMs: 15_000 };
  for (const [mode, implementations] of [
    ['attacher', options.attacher],
    ['controller', options.controller],
  ] as const) {
    for (const implementation of implementations) {
      const skips: Skips = { count: 0, ms: 0 };
      const row = await onStage(options, mode, options.changes, implementation, async (stage, made, running) => {
        const times = await churn(stage, running, made, churnOptions, skips);
        const { recorded } = stage;
        if (mode === 'attacher')
          return {
            mode,
            implementation,
            attach: percentiles(spans(recorded.vaCreated, recorded.attachSent)),
            detach: percentiles(spans(recorded.vaDeleting, recorded.detachSent)),
            skips,
            unfinished: times.unfinished,
          };
        return {
          mode,
          implementation,
          attach: percentiles(spans(times.bound, recorded.attachSent)),
          detach: percentiles(spans(recorded.unmounted, recorded.detachSent)),
          deletedToDetach: percentiles(spans(times.deleted, recorded.detachSent)),
          skips,
          unfinished: times.unfinished,
        };
      });
      figures.latency.push(row);
      const left = row.unfinished > 0 ? `; ${row.unfinished} not detached within the cap` : '';
      log(`  ${mode} mode, ${implementation}: attach ${describe(row.attach)}; detach ${describe(row.detach)}${left}`);
    }
  }
  for (const [mode, implementations] of [
    ['attacher', options.attacher],
    ['controller', options.controller],
  ] as const)
    for (const implementation of implementations) {
      const skips: Skips = { count: 0, ms: 0 };
      const rolled = await onStage(options, mode, options.pods, implementation, async (stage, made, running) =>
        rollingUpdate(stage, running, await statefulSet(stage, running, made, { count: 0, ms: 0 }), skips),
      );
      figures.rolling.push({ mode, implementation, ...rolled, skips });
      const left = rolled.unfinished === undefined ? '' : ` (stopped: ${rolled.unfinished})`;
      log(`  ${mode} mode, rolling update of ${options.pods} pods, ${implementation}: ${(rolled.totalMs / 1000).toFixed(1)} s${left}`);
    }
  return figures;
}
