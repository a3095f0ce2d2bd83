/**
 * `npm run bench -- --covered-trace [--nodes 10000] [--rtt 20]`: where a covered pass's wall time
 * goes, request by request. The controller runs in its own process (as in the size bench) and
 * traces what it sends; the local servers, in this process, trace what they answer. Each request
 * is shown with its time as the controller waited for it and as the server spent on it; the rest
 * of the controller's wait is the wire, the added latency and the event loops of both processes.
 */
import { RunningClock } from '../sandbox/clock.js';
import { localDynamoClient } from '../sandbox/dynamodb.js';
import { generateCluster } from '../sandbox/generate/cluster.js';
import { seedEc2 } from '../sandbox/generate/seed.js';
import { startLocalStack } from '../sandbox/local-stack.js';
import type { PassAnswer } from './pass-child.js';
import { measureCovered } from './covered.js';
import { servicesByEndpoint, traceServed, type ServedRequest, type TracedRequest } from './request-trace.js';
import { seedActualState } from './seed-state.js';
import { injectRtt } from './size.js';

export interface TraceOptions {
  nodes: number;
  rttMs: number;
  memoryMb: number;
}

export async function traceCoveredPass(options: TraceOptions): Promise<string[]> {
  const clock = new RunningClock(1);
  const stage = await startLocalStack({ clock, tableName: `trace-${options.nodes}`, clusterName: 'bench' });
  try {
    const cluster = generateCluster({ seed: options.nodes, nodes: options.nodes, volumesPerNode: 4, podsPerNode: 10 });
    seedEc2(stage.ec2.world, cluster, 'bench');
    const client = localDynamoClient(stage.dynamo.endpoint);
    await seedActualState(stage.controller.ports.store, { client, tableName: stage.tableName }, cluster, clock.now()).finally(() =>
      client.destroy(),
    );
    // The records are seeded as changed now: past two sync periods they are settled, as in steady state.
    clock.advance(3 * 61_000);
    const services = servicesByEndpoint({ EC2: stage.ec2.endpoint, DynamoDB: stage.dynamo.endpoint });
    const lines: string[] = [];
    await measureCovered(stage, { env: stage.env, memoryMb: options.memoryMb, rttMs: options.rttMs }, async (child, rttMs) => {
      injectRtt(stage, rttMs);
      const served = traceServed(services);
      try {
        const answer = await child.run({ capMs: 240_000, clockOffsetMs: stage.clock.now() - Date.now(), trace: true });
        lines.push(...traceLines(options.nodes, rttMs, answer, served.stop()));
      } finally {
        injectRtt(stage, 0);
      }
    });
    return lines;
  } finally {
    await stage.stop();
  }
}

/**
 * Each traced request beside the served one of its service in the same place of that service's
 * order (by start): requests leave and arrive in the same order, while a busy server may take
 * them up long after they were sent, so matching by time alone mixes up concurrent ones.
 */
function paired(requests: readonly TracedRequest[], served: readonly ServedRequest[]): [TracedRequest, ServedRequest | undefined][] {
  const byService = new Map<string, ServedRequest[]>();
  for (const s of [...served].sort((a, b) => a.startMs - b.startMs)) byService.set(s.service, [...(byService.get(s.service) ?? []), s]);
  const taken = new Map<string, number>();
  return [...requests]
    .sort((a, b) => a.startMs - b.startMs)
    .map((request) => {
      const index = taken.get(request.service) ?? 0;
      taken.set(request.service, index + 1);
      return [request, byService.get(request.service)?.[index]];
    });
}

/** Milliseconds covered by at least one of the intervals. */
function unionMs(intervals: readonly { startMs: number; endMs: number }[]): number {
  let total = 0;
  let until = -Infinity;
  for (const { startMs, endMs } of [...intervals].sort((a, b) => a.startMs - b.startMs)) {
    if (endMs <= until) continue;
    total += endMs - Math.max(startMs, until);
    until = endMs;
  }
  return total;
}

function traceLines(nodes: number, rttMs: number, answer: PassAnswer, served: ServedRequest[]): string[] {
  const requests = answer.requests ?? [];
  const origin = requests[0]?.startMs ?? 0;
  const ms = (n: number) => `${Math.round(n)}`;
  const lines = [
    `## Covered pass at ${nodes} nodes, ${rttMs} ms added per request: wall ${ms(answer.wallMs)} ms, CPU ${ms(answer.cpuMs)} ms, ${requests.length} requests`,
    '',
    '| # | service | request | sent at (ms) | controller waited (ms) | server spent (ms) | outside the server (ms) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  paired(requests, served).forEach(([request, match], i) => {
    const waited = request.endMs - request.startMs;
    const spent = match === undefined ? NaN : match.endMs - match.startMs;
    const label = match?.label || request.label;
    lines.push(
      `| ${i + 1} | ${request.service} | ${label} | ${ms(request.startMs - origin)} | ${ms(waited)} | ${ms(spent)} | ${ms(waited - spent)} |`,
    );
  });
  const byService = (service: string) => served.filter((s) => s.service === service);
  lines.push(
    '',
    `Some request in flight: ${ms(unionMs(requests))} ms of ${ms(answer.wallMs)} ms wall; ` +
      `a server busy: ${ms(unionMs(served))} ms (DynamoDB ${ms(unionMs(byService('DynamoDB')))} ms, EC2 ${ms(unionMs(byService('EC2')))} ms).`,
    '',
  );
  return lines;
}
