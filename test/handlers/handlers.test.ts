import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { scheduledHandler } from '../../lambda/handlers/scheduled-handler.js';
import { clusterEventHandler, ec2EventHandler } from '../../lambda/handlers/sqs-handler.js';
import { watcherHandler } from '../../lambda/handlers/watcher-handler.js';
import { lambdaContext, sqsBatch } from '../../sandbox/events.js';
import { recordingController, type RecordingController } from '../support/recording-controller.js';

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`fixtures/${name}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;
const withPod = (name: string) => {
  const event = fixture('kubernetes-event-pod-scheduled');
  const detail = event.detail as { involvedObject: { name: string } };
  return { ...event, detail: { ...detail, involvedObject: { ...detail.involvedObject, name } } };
};

let controller: RecordingController;
let clusterEvent: ReturnType<typeof clusterEventHandler>;
let ec2Event: ReturnType<typeof ec2EventHandler>;
let scheduled: ReturnType<typeof scheduledHandler>;
let emitted: string[];

beforeEach(() => {
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  controller = recordingController({ failTargets: ['pod/default/broken'] });
  clusterEvent = clusterEventHandler(controller);
  ec2Event = ec2EventHandler(controller);
  scheduled = scheduledHandler(controller);
  emitted = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    emitted.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** Embedded-metric-format lines carrying `name`, as CloudWatch would read them from the log. */
const metricLines = (name: string) =>
  emitted
    .flatMap((line) => line.split('\n'))
    .filter((l) => l.includes('"_aws"') && l.includes(`"${name}"`))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('cluster-event handler', () => {
  it('runs one targeted pass per pod or node, however many events name it', async () => {
    const batch = sqsBatch([
      fixture('kubernetes-event-pod-scheduled'),
      fixture('kubernetes-event-pod-scheduled'),
      fixture('kubernetes-event-node-not-ready'),
    ]);

    const response = await clusterEvent(batch, lambdaContext());

    expect(controller.targets.sort()).toEqual(['node/node-1', 'pod/default/db-0']);
    expect(response).toEqual({ batchItemFailures: [] });
  });

  it.each([
    ['a Pod event without a namespace', fixture('kubernetes-event-pod-without-namespace')],
    ['an event about a Deployment', fixture('kubernetes-event-deployment')],
    ['a body that is not JSON', '{"detail-type": '],
    ['an EC2 event on the cluster queue', fixture('ec2-instance-stopped')],
    ['a Pod name that is no DNS-1123 subdomain', withPod('DB_0')],
    ['a Pod name longer than 253 characters', withPod('a'.repeat(254))],
  ])('rejects %s: logged, counted as Rejected (Source=event), acknowledged, no pass', async (_name, body) => {
    const response = await clusterEvent(sqsBatch([body, fixture('kubernetes-event-node-not-ready')]), lambdaContext());

    expect(controller.targets).toEqual(['node/node-1']);
    expect(response).toEqual({ batchItemFailures: [] });
    expect(metricLines('Rejected')).toEqual([expect.objectContaining({ Rejected: 1, Source: 'event', ClusterName: 'test' })]);
  });

  it('reports for retry exactly the records whose pass failed', async () => {
    const batch = sqsBatch([withPod('db-0'), withPod('broken'), withPod('broken'), fixture('kubernetes-event-deployment')]);

    const response = await clusterEvent(batch, lambdaContext());

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-2' }, { itemIdentifier: 'm-3' }] });
  });
});

describe('ec2-event handler', () => {
  it('runs a targeted pass for the instance of a stop', async () => {
    const response = await ec2Event(sqsBatch([fixture('ec2-instance-stopped'), fixture('ec2-instance-stopped')]), lambdaContext());

    expect(controller.targets).toEqual(['instance/i-1234567890abcdef0']);
    expect(response).toEqual({ batchItemFailures: [] });
  });

  it('acknowledges states that need nothing (running) without a pass or a rejection', async () => {
    await ec2Event(sqsBatch([fixture('ec2-instance-running')]), lambdaContext());

    expect(controller.targets).toEqual([]);
    expect(metricLines('Rejected')).toEqual([]);
  });

  it('rejects an event whose instance id is malformed', async () => {
    const response = await ec2Event(sqsBatch([fixture('ec2-bad-instance-id')]), lambdaContext());

    expect(controller.targets).toEqual([]);
    expect(response).toEqual({ batchItemFailures: [] });
    expect(metricLines('Rejected')).toHaveLength(1);
  });
});

describe('scheduled handler', () => {
  it("runs one full pass for the scheduler's payload", async () => {
    const result = await scheduled(fixture('scheduler-full-pass'), lambdaContext());

    expect(result).toMatchObject({ converged: true, actions: 0 });
    expect(controller.fullPasses).toBe(1);
  });

  it('rejects a payload asking for something else, without a pass', async () => {
    const result = await scheduled({ pass: 'everything' }, lambdaContext());

    expect(result).toMatchObject({ converged: false });
    expect(result.rejected).toContain('pass');
    expect(controller.fullPasses).toBe(0);
  });
});

describe('watcher handler', () => {
  it("runs one watcher for the scheduler's payload, and says what it did in metrics when it ends", async () => {
    const result = await watcherHandler(controller)(fixture('scheduler-watch'), lambdaContext());

    expect(result).toEqual({ watcherId: 'watcher-1', watched: true, why: 'deadline', passes: 3 });
    expect(controller.watches).toBe(1);
    expect(metricLines('WatcherRuns')).toHaveLength(1);
    expect(metricLines('WatchPasses')[0]).toMatchObject({ WatchPasses: 3, WatchChanges: 12, WatchQueueWait: 4 });
  });

  it('rejects the full pass payload (that is the scheduled function), without a watcher', async () => {
    const result = await watcherHandler(controller)({ pass: 'full' }, lambdaContext());

    expect(result).toMatchObject({ watched: false, why: 'rejected' });
    expect(controller.watches).toBe(0);
  });
});
