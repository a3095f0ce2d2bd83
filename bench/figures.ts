/**
 * What a benchmark run measured, as the report and the goals table read it (and results/latest.json
 * keeps): the data alone, so that neither the report nor the goals table imports the other.
 */
import type { EnvironmentBurst } from './burst-environments.js';
import type { BundleFigures } from './bundles.js';
import type { DeadInstanceFigures } from './dead-instance.js';
import type { EventLatency } from './latency.js';
import type { SizeFigures } from './size.js';

export interface BenchFigures {
  startedAt: string;
  machine: {
    cpus: number;
    node: string;
    /** One-minute load average when the run started (the machine is shared). */ loadAverage?: number;
  };
  /** The full pass function's memory size; its process ran with the heap limits Lambda gives it. */
  functionMemoryMb?: number;
  sizes: SizeFigures[];
  bundles?: BundleFigures[];
  /** The burst across 1, 3 and 5 execution environments sharing the EC2 budget. */
  environmentBursts?: EnvironmentBurst[];
  /** Event → AttachVolume in attacher mode, kcm's VolumeAttachment already there (attacher-latency.ts). */
  attacherLatency?: EventLatency;
  /** Issue 12: instance dead → the replacement's volume attached, per mode (sandbox/dead-instance.ts). */
  deadInstance?: DeadInstanceFigures[];
  /** Issue 14's table, filled in from the figures above. */
  goals?: GoalRow[];
}

/** One row of issue 14's goals table. */
export interface GoalRow {
  figure: string;
  today: string;
  goal: string;
  measured: string;
  /** Undefined when not measured in this run. */
  met?: boolean;
}
