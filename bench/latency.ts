/**
 * Event → AttachVolume: a pod is scheduled, its Scheduled event reaches the cluster-event
 * handler (as an SQS batch), and the clock stops when EC2 receives AttachVolume. Run again with
 * 20 ms added to every Kubernetes and EC2 request, tracing the controller's requests: the longest
 * chain of Kubernetes/EC2 requests that finished before AttachVolume, one after another, is the
 * number of sequential round trips on the path (requests in flight together count once). DynamoDB
 * calls before the attach are counted, and their own sequential chain too. Either operating
 * mode: how the pod comes to be scheduled (and, in attacher mode, kcm's VolumeAttachment created)
 * is the caller's `schedule`.
 */
import { setImmediate as tick } from 'node:timers/promises';
import { DEFAULT_REQUEST_POLICY } from '../lambda/adapters/kubernetes/request-policy.js';
import type { Actors } from '../sandbox/demo/actors.js';
import { kubernetesEvent, lambdaContext, sqsBatch } from '../sandbox/events.js';
import type { Handlers, LocalStack } from '../sandbox/local-stack.js';
import type { GenNode } from '../sandbox/generate/model.js';
import { sequentialRoundTrips, servicesByEndpoint, traceRequests, type TracedRequest } from './request-trace.js';

const ADDED_MS = 20;

export interface EventLatency {
  medianMs: number;
  medianWithAddedMs: number;
  /** Median over the slowed samples of the longest chain of non-overlapping Kubernetes/EC2 requests before AttachVolume. */
  sequentialRoundTrips: number;
  /** The same estimated from time: (slowed − plain) ÷ the added 20 ms. */
  roundTripsFromTime: number;
  dynamoCallsBeforeAttach: number;
  /** Median over the slowed samples of the longest chain of DynamoDB calls before AttachVolume. */
  sequentialDynamoCalls: number;
  /** One slowed sample's requests before AttachVolume, in the order they were sent: `+<ms> <service> <request>`. */
  path: string[];
  samples: number;
}

/** A pod just scheduled onto `nodeName`, whose `Scheduled` event the sample sends. */
export interface ScheduledPod {
  namespace: string;
  name: string;
  uid: string;
  nodeName: string;
}

/** Schedules the `n`th sample's pod (its claim provisioned and bound); nothing is attached yet. */
export type SchedulePod = (n: number) => ScheduledPod | Promise<ScheduledPod>;

/** Controller mode's samples: a StatefulSet pod with a fresh claim, on the nodes in turn. */
export function scheduleWithActors(actors: Actors): SchedulePod {
  return (n) => {
    const node = actors.cluster.nodes[n % actors.cluster.nodes.length] as GenNode;
    const claim = `data-latency-${n}`;
    actors.provision('bench', claim, node.zone);
    const pod = actors.schedule(
      {
        namespace: 'bench',
        name: `latency-${n}`,
        app: 'latency',
        owner: { kind: 'StatefulSet', name: 'latency', uid: 'latency-uid' },
        claims: [claim],
      },
      node,
    );
    return { namespace: pod.namespace, name: pod.name, uid: pod.uid, nodeName: node.name };
  };
}

interface Sample {
  ms: number;
  dynamo: number;
  /** Requests that finished before EC2 received AttachVolume. */
  before: TracedRequest[];
}

/**
 * Story time for the environment's Kubernetes rate limiter (client-go's token bucket) to fill again:
 * each sample is an event that arrives alone. Back to back, the samples drained it and the trace
 * showed the pacing (a request every 1/qps s) as a dozen sequential round trips.
 */
const BUCKET_REFILL_MS = Math.ceil((DEFAULT_REQUEST_POLICY.burst / DEFAULT_REQUEST_POLICY.qps) * 1000);

async function sample(stage: LocalStack, handlers: Handlers, schedule: SchedulePod, n: number): Promise<Sample> {
  stage.clock.advance(BUCKET_REFILL_MS);
  const pod = await schedule(n);
  const attaches = stage.ec2.counters().calls.AttachVolume ?? 0;
  const dynamoBefore = Object.values(stage.dynamo.meter.calls).reduce((a, b) => a + b, 0);
  const event = sqsBatch([
    kubernetesEvent(
      { kind: 'Pod', namespace: pod.namespace, name: pod.name, uid: pod.uid },
      'Scheduled',
      `Successfully assigned ${pod.namespace}/${pod.name} to ${pod.nodeName}`,
      stage.clock.now(),
    ),
  ]);
  const trace = traceRequests(
    servicesByEndpoint({ Kubernetes: stage.kube.url, EC2: stage.ec2.endpoint, DynamoDB: stage.env.AWS_ENDPOINT_URL_DYNAMODB ?? '' }),
  );
  const started = performance.now();
  const done = handlers.clusterEvent(event, lambdaContext(60_000, 'cluster-event'));
  while ((stage.ec2.counters().calls.AttachVolume ?? 0) === attaches && performance.now() - started < 30_000) await tick();
  const seenAt = performance.now();
  const dynamo = Object.values(stage.dynamo.meter.calls).reduce((a, b) => a + b, 0) - dynamoBefore;
  await done;
  const before = trace.stop().filter((r) => r.startMs >= started && r.endMs <= seenAt);
  return { ms: seenAt - started, dynamo, before: before.map((r) => ({ ...r, startMs: r.startMs - started, endMs: r.endMs - started })) };
}

const ofServices = (requests: TracedRequest[], ...services: string[]) => requests.filter((r) => services.includes(r.service));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export async function measureEventLatency(
  stage: LocalStack,
  handlers: Handlers,
  schedule: SchedulePod,
  samples = 5,
): Promise<EventLatency> {
  const plain: Sample[] = [];
  const slowed: Sample[] = [];
  for (let i = 0; i < samples; i++) plain.push(await sample(stage, handlers, schedule, i));
  stage.kube.faults.latency(ADDED_MS);
  stage.ec2.setLatency('*', ADDED_MS);
  try {
    for (let i = 0; i < samples; i++) slowed.push(await sample(stage, handlers, schedule, i + samples));
  } finally {
    stage.kube.faults.latency(0);
    stage.ec2.setLatency('*', 0);
  }
  const medianMs = median(plain.map((p) => p.ms));
  const medianWithAddedMs = median(slowed.map((p) => p.ms));
  const last = slowed.at(-1)?.before ?? [];
  return {
    medianMs,
    medianWithAddedMs,
    sequentialRoundTrips: median(slowed.map((p) => sequentialRoundTrips(ofServices(p.before, 'Kubernetes', 'EC2')))),
    roundTripsFromTime: Math.round((medianWithAddedMs - medianMs) / ADDED_MS),
    dynamoCallsBeforeAttach: median(plain.map((p) => p.dynamo)),
    sequentialDynamoCalls: median(slowed.map((p) => sequentialRoundTrips(ofServices(p.before, 'DynamoDB')))),
    path: last.map((r) => `+${r.startMs.toFixed(0)}–${r.endMs.toFixed(0)} ms ${r.service} ${r.label}`),
    samples,
  };
}
