/** The benchmark's Markdown report, its JSON figures, and the short table printed to stdout. */
import { environmentLine } from './burst-environments.js';
import { deadInstanceLine } from './dead-instance.js';
import { lambdaHeapFlags } from '../infra/bundling.js';
import type { BenchFigures } from './figures.js';
import { goalTable } from './goals.js';
import type { EventLatency } from './latency.js';
import type { PassFigures, SizeFigures } from './size.js';

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const invocations = (p: PassFigures) => (p.invocations > 1 ? ` in ${p.invocations} invocations` : '');
const pass = (p: PassFigures) =>
  p.timedOut ? `> ${s(p.wallMs)} (cap)` : p.error ? `failed: ${p.error}` : `${s(p.wallMs)}${invocations(p)}`;
const sum = (p: PassFigures, service: string) => p.calls.filter((r) => r.service === service).reduce((n, r) => n + r.calls, 0);

export function shortTable(figures: BenchFigures): string[] {
  const lines = ['nodes  | takeover pass | full pass (sync) | calls k8s/EC2/DDB | plan÷parse | event→attach | burst attaches/s'];
  for (const f of figures.sizes) {
    lines.push(
      [
        String(f.nodes).padEnd(6),
        (f.takeover ? pass(f.takeover) : 'seeded').padEnd(13),
        pass(f.steadyAtSync).padEnd(16),
        `${sum(f.steadyAtSync, 'Kubernetes')}/${sum(f.steadyAtSync, 'EC2')}/${sum(f.steadyAtSync, 'DynamoDB')}`.padEnd(17),
        (f.planCpu ? f.planCpu.ratio.toFixed(2) : '–').padEnd(10),
        (f.latency ? `${f.latency.medianMs.toFixed(0)} ms` : '–').padEnd(12),
        f.burst ? `${f.burst.perSecond.toFixed(2)} (${f.burst.throttled} throttled)` : '–',
      ].join(' | '),
    );
  }
  for (const b of figures.bundles ?? [])
    lines.push(
      `bundle ${b.name} (${b.build}): ${(b.bytes / 1024).toFixed(0)} KiB (×${b.sizeRatio.toFixed(1)} empty), init ${b.initMs.toFixed(0)} ms (×${b.initRatio.toFixed(1)} empty), CPU ${b.initCpuMs.toFixed(0)} ms, load ${b.loadAverage.toFixed(1)}`,
    );
  return lines;
}

function callTable(p: PassFigures): string[] {
  return [
    '| service | operation | calls | lower bound |',
    '| --- | --- | ---: | ---: |',
    ...p.calls.map((r) => `| ${r.service} | ${r.operation} | ${r.calls} | ${r.lowerBound ?? '–'} |`),
  ];
}

const PASS_NAMES = {
  takeover: 'first full passes (takeover: seed + verify), each invocation with the function timeout',
  steadyAtSync: 'steady state, sync due (verifies)',
  steadyAtSyncNoRtt: 'steady state, sync due, no latency added',
  steadyBetweenSyncs: 'steady state, between syncs',
  coveredAtSync: 'covered (a live watcher covers), sync due: a fresh process',
  coveredAtSyncNoRtt: 'covered, sync due (the next slice), no latency added',
};

function sizeSection(f: SizeFigures): string[] {
  const lines = [
    `## ${f.nodes} nodes`,
    '',
    `${f.counts.pods} pods, ${f.counts.pvs} PVs/PVCs, ${f.counts.volumeAttachments} attachments (VolumeAttachments), seeded in-process in ${s(f.seedMs)}.`,
    '',
    `List page size ${f.pageSize}. The controller runs in its own process (a bundle built like the Lambda's): CPU and peak resident memory are its own.`,
    '',
    '| pass | added per request | wall | controller CPU | RSS before → peak | actions | converged |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
    ...(['takeover', 'steadyAtSync', 'steadyAtSyncNoRtt', 'steadyBetweenSyncs', 'coveredAtSync', 'coveredAtSyncNoRtt'] as const).flatMap(
      (k) => {
        const p = f[k];
        if (p === undefined)
          return k === 'takeover'
            ? [`| first full pass (takeover) | | not measured: actual state seeded into DynamoDB in ${s(f.stateSeedMs ?? 0)} | | | | |`]
            : [];
        return `| ${PASS_NAMES[k]} | ${p.rttMs} ms | ${pass(p)} | ${s(p.cpuMs)} | ${p.rssBeforeMb} → ${p.peakRssMb} MB | ${p.actions ?? '–'} | ${p.converged ?? '–'} |`;
      },
    ),
    ...(f.otherPageSizes ?? []).map(
      (o) =>
        `| steady state, sync due, page size ${o.pageSize} | ${o.steadyAtSync.rttMs} ms | ${pass(o.steadyAtSync)} | ${s(o.steadyAtSync.cpuMs)} | ${o.steadyAtSync.rssBeforeMb} → ${o.steadyAtSync.peakRssMb} MB | | |`,
    ),
    '',
    '### Full pass in steady state at a sync (verification due): calls against the lower bound',
    '',
    ...callTable(f.steadyAtSync),
    '',
    '### Steady-state pass between syncs',
    '',
    ...callTable(f.steadyBetweenSyncs),
    '',
    ...(f.coveredAtSync
      ? ['### Covered pass at a sync (nothing listed; the rolling slice described)', '', ...callTable(f.coveredAtSync), '']
      : []),
    `DynamoDB at the sync pass: ${f.steadyAtSync.dynamo.itemsRead} items read, ${f.steadyAtSync.dynamo.itemsWritten} written, ${f.steadyAtSync.dynamo.conditionalFailures} conditional failures; capacity units ${f.steadyAtSync.dynamo.capacityUnits} (the store does not ask for ReturnConsumedCapacity, so calls and items are counted instead). ${f.takeover ? `Takeover: ${f.takeover.dynamo.itemsWritten} items written.` : ''}`,
    `EC2 mutating calls in the steady passes: ${['AttachVolume', 'DetachVolume'].map((op) => f.steadyAtSync.calls.find((r) => r.operation === op)?.calls ?? 0).reduce((a, b) => a + b, 0)}.`,
  ];
  if (f.planCpu)
    lines.push(
      '',
      `Plan CPU: buildDesiredState + plan ${f.planCpu.planMs.toFixed(1)} ms vs JSON.parse of the same inputs ${f.planCpu.parseMs.toFixed(1)} ms: ratio ${f.planCpu.ratio.toFixed(2)} (${f.planCpu.actions} actions).`,
    );
  if (f.latency)
    lines.push('', ...eventLatencyLines('Event → AttachVolume (cluster-event handler, SQS batch of one Scheduled event)', f.latency));
  if (f.burst)
    lines.push(
      '',
      `Burst: ${f.burst.accepted}/${f.burst.requested} AttachVolume accepted in ${f.burst.seconds.toFixed(1)} s = ${f.burst.perSecond.toFixed(2)}/s (EC2's mutating budget allows ${Number.isFinite(f.burst.budgetPerSecond) ? f.burst.budgetPerSecond.toFixed(2) : 'all at once'}/s for this burst: 50 at once, then 5/s, on the sandbox's real-time clock); ${f.burst.throttled} calls throttled${f.burst.finished ? '' : '; the burst did not finish within the cap'}.`,
    );
  return [...lines, ''];
}

function eventLatencyLines(what: string, l: EventLatency): string[] {
  return [
    `${what}: median ${l.medianMs.toFixed(0)} ms over ${l.samples} samples; with 20 ms added to every Kubernetes and EC2 request ${l.medianWithAddedMs.toFixed(0)} ms. Traced: ${l.sequentialRoundTrips} sequential Kubernetes/EC2 round trips before AttachVolume (requests in flight together count once; from the times alone about ${l.roundTripsFromTime}), plus ${l.dynamoCallsBeforeAttach} DynamoDB calls (${l.sequentialDynamoCalls} one after another). One sample's requests before AttachVolume:`,
    '',
    '```',
    ...l.path,
    '```',
  ];
}

export function markdown(figures: BenchFigures): string {
  const bundles = figures.bundles ?? [];
  return [
    '# Benchmark',
    '',
    `Run ${figures.startedAt} on ${figures.machine.cpus} CPUs (load average ${figures.machine.loadAverage?.toFixed(1) ?? '?'} at the start), Node ${figures.machine.node}. Sandboxes in the bench's process on loopback; the controller's full passes in a process of their own${figures.functionMemoryMb === undefined ? '' : ` with the heap limits Lambda gives a ${figures.functionMemoryMb} MB function (${lambdaHeapFlags(figures.functionMemoryMb).join(' ')})`}, through the real adapters and HTTP with the composition root's defaults (Kubernetes client limit 20 QPS / burst 30 for requests other than a list's later pages, EC2 mutating budget shared through the table, 4/s and a burst of 20 per action unless said otherwise).`,
    '',
    ...goalTable(figures),
    ...figures.sizes.flatMap(sizeSection),
    ...(figures.environmentBursts?.length
      ? [
          '## Burst across execution environments (one budget in the table)',
          '',
          ...figures.environmentBursts.map((b) => `- ${environmentLine(b)}`),
          '',
        ]
      : []),
    ...(figures.attacherLatency
      ? [
          '## Event → AttachVolume in attacher mode',
          '',
          ...eventLatencyLines(
            "A 3-node world; kcm's VolumeAttachment exists when the pod's `Scheduled` event arrives",
            figures.attacherLatency,
          ),
          '',
        ]
      : []),
    ...(figures.deadInstance?.length
      ? [
          '## Dead instance → replacement attached (issue 12)',
          '',
          "Through the real handlers on the sandbox clock. The cluster plays upstream's order: taint eviction at once, the node NotReady 40 s after the instance died (the clock jumps there), pod GC, the StatefulSet's replacement on node-2 and its `Scheduled` event; kcm's attach/detach controller in attacher mode.",
          '',
          ...figures.deadInstance.map((f) => `- ${deadInstanceLine(f)}`),
          '',
        ]
      : []),
    ...(bundles.length
      ? [
          "## Lambda bundles (the stack's build, the plain esbuild bundle of the same entry, and for the first handler the stack's build less each plugin)",
          '',
          '| bundle | build | bytes | gzip | ×empty | init (median) | ×empty | init CPU (median) | load average |',
          '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
          ...bundles.map(
            (b) =>
              `| ${b.name} | ${b.build} | ${b.bytes} | ${b.gzipBytes} | ${b.sizeRatio.toFixed(1)} | ${b.initMs.toFixed(1)} ms | ${b.initRatio.toFixed(1)} | ${b.initCpuMs.toFixed(1)} ms | ${b.loadAverage.toFixed(1)} |`,
          ),
        ]
      : []),
    '',
  ].join('\n');
}
