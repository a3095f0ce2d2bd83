/**
 * Event → AttachVolume: a pod is scheduled, its Scheduled event reaches the cluster-event
 * handler (as an SQS batch), and the clock stops when EC2 receives AttachVolume. Run again with
 * 20 ms added to every Kubernetes and EC2 request: the difference over 20 ms is the number of
 * sequential round trips to those two on the path (DynamoDB calls before the attach are counted).
 */
import { setImmediate as tick } from 'node:timers/promises';
import type { Actors } from '../sandbox/demo/actors.js';
import { kubernetesEvent, lambdaContext, sqsBatch } from '../sandbox/events.js';
import type { Handlers, LocalStack } from '../sandbox/local-stack.js';
import type { GenNode } from '../sandbox/generate/model.js';

const ADDED_MS = 20;

export interface EventLatency {
  medianMs: number;
  medianWithAddedMs: number;
  sequentialRoundTrips: number;
  dynamoCallsBeforeAttach: number;
  samples: number;
}

async function sample(
  stage: LocalStack,
  handlers: Handlers,
  actors: Actors,
  node: GenNode,
  n: number,
): Promise<{ ms: number; dynamo: number }> {
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
  const attaches = stage.ec2.counters().calls.AttachVolume ?? 0;
  const dynamoBefore = Object.values(stage.dynamo.meter.calls).reduce((a, b) => a + b, 0);
  const event = sqsBatch([
    kubernetesEvent(
      { kind: 'Pod', namespace: pod.namespace, name: pod.name, uid: pod.uid },
      'Scheduled',
      `Successfully assigned bench/${pod.name} to ${node.name}`,
      stage.clock.now(),
    ),
  ]);
  const started = performance.now();
  const done = handlers.clusterEvent(event, lambdaContext(60_000, 'cluster-event'));
  while ((stage.ec2.counters().calls.AttachVolume ?? 0) === attaches && performance.now() - started < 30_000) await tick();
  const ms = performance.now() - started;
  const dynamo = Object.values(stage.dynamo.meter.calls).reduce((a, b) => a + b, 0) - dynamoBefore;
  await done;
  return { ms, dynamo };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export async function measureEventLatency(stage: LocalStack, handlers: Handlers, actors: Actors, samples = 5): Promise<EventLatency> {
  const nodes = actors.cluster.nodes;
  const plain: { ms: number; dynamo: number }[] = [];
  const slowed: number[] = [];
  for (let i = 0; i < samples; i++) plain.push(await sample(stage, handlers, actors, nodes[i % nodes.length] as GenNode, i));
  stage.kube.faults.latency(ADDED_MS);
  stage.ec2.setLatency('*', ADDED_MS);
  try {
    for (let i = 0; i < samples; i++)
      slowed.push((await sample(stage, handlers, actors, nodes[(i + samples) % nodes.length] as GenNode, i + samples)).ms);
  } finally {
    stage.kube.faults.latency(0);
    stage.ec2.setLatency('*', 0);
  }
  const medianMs = median(plain.map((p) => p.ms));
  const medianWithAddedMs = median(slowed);
  return {
    medianMs,
    medianWithAddedMs,
    sequentialRoundTrips: Math.round((medianWithAddedMs - medianMs) / ADDED_MS),
    dynamoCallsBeforeAttach: median(plain.map((p) => p.dynamo)),
    samples,
  };
}
