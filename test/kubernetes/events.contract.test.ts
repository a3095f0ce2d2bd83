import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { attachFailedEvent, attachSucceededEvent } from '../../lambda/core/events.js';
import { eventName } from '../../lambda/adapters/kubernetes/events.js';
import type { PodRef } from '../../lambda/core/types.js';
import { pod as podObject, startHarness, stored as storedIn, storedList, type Harness } from './support.js';

let h: Harness;
const clock = { now: new Date('2025-06-01T12:00:00Z') };
const options = { instance: 'ebs-attach-detach-scheduled' };
beforeAll(async () => {
  h = await startHarness({ cluster: options, clock: { now: () => clock.now.getTime() } });
  h.sandbox.seed([podObject('shop', 'db-0', 'node-1')]);
});
afterAll(() => h.stop());
beforeEach(() => h.sandbox.resetRequests());

const pod: PodRef = { namespace: 'shop', name: 'db-0', uid: 'uid-db-0' };
const component = 'ebs-attach-detach-controller';
const stored = (name: string) => storedIn(h.sandbox, 'Event', pod.namespace, name);

describe('recordEvent', () => {
  it('creates an Event on the pod with upstream reason and text, from our component', async () => {
    const event = attachSucceededEvent('pvc-1');
    await h.cluster.recordEvent(pod, event);
    expect(stored(eventName(component, pod, event))).toMatchObject({
      involvedObject: { kind: 'Pod', apiVersion: 'v1', namespace: 'shop', name: 'db-0', uid: 'uid-db-0' },
      type: 'Normal',
      reason: 'SuccessfulAttachVolume',
      message: 'AttachVolume.Attach succeeded for volume "pvc-1" ',
      source: { component, host: 'ebs-attach-detach-scheduled' },
      reportingComponent: component,
      count: 1,
      firstTimestamp: '2025-06-01T12:00:00Z',
      lastTimestamp: '2025-06-01T12:00:00Z',
    });
  });

  it('aggregates a repeat, even from another invocation: one Event, count 2, lastTimestamp moved', async () => {
    const event = attachFailedEvent('pvc-2', 'AttachmentLimitExceeded');
    await h.cluster.recordEvent(pod, event);
    clock.now = new Date('2025-06-01T12:05:00Z');
    await h.another(options).recordEvent(pod, event);
    const events = storedList(h.sandbox, 'Event', 'shop').filter((e) => e.reason === 'FailedAttachVolume');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ count: 2, firstTimestamp: '2025-06-01T12:00:00Z', lastTimestamp: '2025-06-01T12:05:00Z' });
    expect(h.sandbox.requests().map((r) => `${r.verb} ${r.status}`)).toEqual(['create 201', 'create 409', 'get 200', 'patch 200']);
  });

  it('keeps different messages apart', async () => {
    await h.cluster.recordEvent(pod, attachFailedEvent('pvc-3', 'one'));
    await h.cluster.recordEvent(pod, attachFailedEvent('pvc-3', 'two'));
    const messages = storedList(h.sandbox, 'Event', 'shop').map((e) => e.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        'AttachVolume.Attach failed for volume "pvc-3" : one',
        'AttachVolume.Attach failed for volume "pvc-3" : two',
      ]),
    );
  });

  it('an event for a pod whose namespace is gone is dropped, not an error', async () => {
    await expect(h.cluster.recordEvent({ ...pod, namespace: 'deleted' }, attachSucceededEvent('pvc-1'))).resolves.toBeUndefined();
  });

  it('two passes repeating the same event at once still count both', async () => {
    const event = attachFailedEvent('pvc-4', 'busy');
    await h.cluster.recordEvent(pod, event);
    h.sandbox.faults.latency(50, { method: 'PATCH', path: `/api/v1/namespaces/shop/events/${eventName(component, pod, event)}` });
    await Promise.all([h.cluster.recordEvent(pod, event), h.another(options).recordEvent(pod, event)]);
    h.sandbox.faults.clear();
    expect(stored(eventName(component, pod, event))?.count).toBe(3);
  });
});
