/**
 * The plan's CPU time against just parsing its inputs: the snapshot and the actual state are
 * read once through the real adapters, then `buildDesiredState` + `plan` (pure) are timed against
 * `JSON.parse` of the same inputs (what any pass must at least spend to have them).
 */
import { buildDesiredState } from '../lambda/core/desired-state.js';
import { DEFAULT_PLAN_CONFIG } from '../lambda/core/config.js';
import { plan } from '../lambda/core/plan.js';
import type { Ports } from '../lambda/composition.js';

export interface PlanCpu {
  planMs: number;
  parseMs: number;
  ratio: number;
  actions: number;
}

function cpuMs(run: () => unknown, repeats = 5): number {
  const samples: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const before = process.cpuUsage();
    run();
    const used = process.cpuUsage(before);
    samples.push((used.user + used.system) / 1000);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] as number;
}

export async function measurePlanCpu(ports: Ports, now: number): Promise<PlanCpu> {
  const [snapshot, scanned] = await Promise.all([ports.cluster.readAll(), ports.store.scan()]);
  const text = JSON.stringify({ snapshot, records: [...scanned.records.values()] });
  let actions = 0;
  const planMs = cpuMs(() => {
    const desired = buildDesiredState(snapshot);
    actions = plan(desired, new Map(scanned.records), {}, now, DEFAULT_PLAN_CONFIG).actions.length;
  });
  const parseMs = cpuMs(() => JSON.parse(text));
  return { planMs, parseMs, ratio: planMs / parseMs, actions };
}
