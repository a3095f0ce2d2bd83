/**
 * `npm run bench -- --side-by-side --trace [--rtt 10]`: the requests each implementation sends between
 * kcm creating a VolumeAttachment and EC2 receiving its AttachVolume (attacher mode), a few pods one
 * at a time, with the sequential round trips among them (request-trace.ts). Says where a reaction's
 * time goes, next to the side-by-side's percentiles.
 */
import { sequentialRoundTrips, servicesByEndpoint, traceRequests, type TracedRequest } from '../request-trace.js';
import { startImplementation, type Implementation } from './implementations.js';
import { startStage } from './stage.js';

const PODS = 4;

export async function traceAttachPath(implementation: Implementation, rttMs: number): Promise<string[]> {
  const stage = await startStage({ mode: 'attacher', nodes: 4, rttMs, attachMs: 2_000, detachMs: 3_000, unmountMs: 1_000 });
  const lines: string[] = [];
  try {
    const volumes = [];
    for (let i = 0; i < PODS; i++) volumes.push(await stage.world.createVolume({ name: `trace-${i}` }));
    const running = startImplementation(stage, implementation);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    stage.slowDown();
    // The clock runs with real time here (nothing skips ahead): its readings map onto performance.now().
    const offset = stage.clock.now() - performance.now();
    const { world } = stage;
    const trace = traceRequests(
      servicesByEndpoint({ Kubernetes: world.kube.url, EC2: world.ec2.endpoint, DynamoDB: world.env.AWS_ENDPOINT_URL_DYNAMODB ?? '' }),
    );
    for (const [i, volume] of volumes.entries()) {
      world.addPod(`trace-${i}`, volume, world.nodes[i % world.nodes.length]!.name, 'Pending');
      running.podBound(volume.namespace, `trace-${i}`, world.nodes[i % world.nodes.length]!.name);
      while (!stage.recorded.attachSent.has(volume.volumeId)) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const requests = trace.stop();
    await running.stop();
    for (const volume of volumes) {
      const from = (stage.recorded.vaCreated.get(volume.volumeId) ?? 0) - offset;
      const to = (stage.recorded.attachSent.get(volume.volumeId) ?? 0) - offset;
      const path = requests.filter((r: TracedRequest) => r.startMs >= from - 1 && r.startMs <= to);
      lines.push(
        `${implementation} ${volume.volumeId}: ${(to - from).toFixed(0)} ms, ${sequentialRoundTrips(path)} sequential round trips`,
      );
      for (const r of path) lines.push(`  +${(r.startMs - from).toFixed(0)}–${(r.endMs - from).toFixed(0)} ms ${r.service} ${r.label}`);
    }
  } finally {
    await stage.stop();
  }
  return lines;
}
