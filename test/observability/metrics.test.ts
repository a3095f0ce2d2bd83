import { StopInstancesCommand } from '@aws-sdk/client-ec2';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Metric, METRICS_NAMESPACE } from '../../lambda/observability/metric-names.js';
import { lambdaContext, sqsBatch } from '../../sandbox/events.js';
import type { Handlers } from '../../sandbox/local-stack.js';
import { startWorld, type World } from '../../sandbox/world.js';
import { readEmf, type EmittedMetric } from './emf.js';

let world: World;
let handlers: Handlers;
let stdout: string;

beforeAll(async () => {
  // Metrics on, as in Lambda (the test runner turns Powertools' metrics off everywhere else).
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  world = await startWorld({ nodes: 2 });
  handlers = world.handlers();
});
afterAll(async () => {
  await world?.stop();
  vi.unstubAllEnvs();
});
beforeEach(() => {
  stdout = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

const base = { ClusterName: 'world', service: 'ebs-attach-detach' };
const emitted = (name: string): EmittedMetric[] => readEmf(stdout).filter((m) => m.name === name);
let events = 0;
const envelope = (detail: object) => ({
  version: '0',
  id: `event-${++events}`,
  'detail-type': 'EC2 Instance State-change Notification',
  source: 'aws.ec2',
  account: '123456789012',
  time: '2026-11-22T08:00:00Z',
  region: 'us-east-1',
  resources: [],
  detail,
});

describe('pass metrics in embedded metric format, as the handlers flush them', () => {
  it('a full pass that attaches: duration per Pass, actions per Kind and Outcome, attach latency, per-pass counts and sizes', async () => {
    const volume = await world.createVolume({ name: 'data-db-0' });
    world.addPod('db-0', volume, 'node-1');

    await handlers.scheduled({ pass: 'full' }, lambdaContext());

    expect(readEmf(stdout).every((m) => m.namespace === METRICS_NAMESPACE)).toBe(true);
    expect(emitted(Metric.PassDuration)).toEqual([
      expect.objectContaining({ unit: 'Milliseconds', dimensions: { ...base, Pass: 'full' } }),
    ]);
    expect(emitted(Metric.Actions)).toEqual([
      expect.objectContaining({ unit: 'Count', value: 1, dimensions: { ...base, Kind: 'attach', Outcome: 'ok' } }),
    ]);
    const [latency] = emitted(Metric.AttachLatency);
    expect(latency).toMatchObject({ unit: 'Milliseconds', dimensions: base });
    expect(latency?.value).toBeGreaterThan(0);
    for (const [name, value] of [
      [Metric.DesiredAttachments, 1],
      [Metric.ActualAttachments, 1],
      [Metric.MultiAttachConflicts, 0],
      [Metric.Ec2Throttles, 0],
      [Metric.ExpiredOperations, 0],
      [Metric.DetachesHeldBack, 0],
    ] as const) {
      expect(emitted(name), name).toEqual([expect.objectContaining({ unit: 'Count', value, dimensions: base })]);
    }
    expect(emitted(Metric.ForcedDetaches)).toEqual([]);
  });

  it('a targeted pass for a stopped instance: a forced detach counted by Trigger, with its latency', async () => {
    const node = world.nodes[1]!;
    const volume = await world.createVolume({ name: 'data-web-0' });
    world.addPod('web-0', volume, node.name);
    await handlers.scheduled({ pass: 'full' }, lambdaContext());
    world.kube.kubelet.deletePod('default', 'web-0');
    world.kube.kubelet.setReady(node.name, false);
    await world.ec2Client.send(new StopInstancesCommand({ InstanceIds: [node.instanceId] }));
    world.clock.advance(250); // EC2's stop (or termination) delay passes: no real waiting
    stdout = '';

    await handlers.ec2Event(sqsBatch([envelope({ 'instance-id': node.instanceId, state: 'stopped' })]), lambdaContext());

    expect(emitted(Metric.PassDuration)).toEqual([expect.objectContaining({ dimensions: { ...base, Pass: 'targeted' } })]);
    expect(emitted(Metric.ForcedDetaches)).toEqual([
      expect.objectContaining({ unit: 'Count', value: 1, dimensions: { ...base, Trigger: 'instance-stopped' } }),
    ]);
    expect(emitted(Metric.Actions)).toEqual(
      expect.arrayContaining([expect.objectContaining({ value: 1, dimensions: { ...base, Kind: 'detach', Outcome: 'ok' } })]),
    );
    expect(emitted(Metric.DetachLatency)).toEqual([expect.objectContaining({ unit: 'Milliseconds', dimensions: base })]);
  });

  it('a malformed event: Rejected with Source=event, and no pass', async () => {
    await handlers.ec2Event(sqsBatch([envelope({ 'instance-id': 'not-an-instance', state: 'stopped' })]), lambdaContext());

    expect(emitted(Metric.Rejected)).toEqual([
      expect.objectContaining({ unit: 'Count', value: 1, dimensions: { ...base, Source: 'event' } }),
    ]);
    expect(emitted(Metric.PassDuration)).toEqual([]);
  });
});
