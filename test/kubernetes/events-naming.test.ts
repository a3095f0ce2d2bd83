import { describe, expect, it } from 'vitest';
import { attachSucceededEvent } from '../../lambda/core/events.js';
import { eventName } from '../../lambda/adapters/kubernetes/events.js';
import type { PodRef } from '../../lambda/core/types.js';

const pod: PodRef = { namespace: 'shop', name: 'db-0', uid: '1f0c' };
const component = 'ebs-attach-detach-controller';

describe('event names (deterministic, so repeats across invocations meet)', () => {
  const event = attachSucceededEvent('pvc-1');

  it('is the same for the same (pod, type, reason, message)', () => {
    expect(eventName(component, pod, event)).toBe(eventName(component, { ...pod }, { ...event }));
    expect(eventName(component, pod, event)).toMatch(/^db-0\.[0-9a-f]{16}$/);
  });

  it.each([
    ['another message', { ...event, message: `${event.message}x` }, pod],
    ['another reason', { ...event, reason: 'FailedAttachVolume' }, pod],
    ['another pod incarnation (uid)', event, { ...pod, uid: '2a0d' }],
  ])('differs for %s', (_behaviour, other, otherPod) => {
    expect(eventName(component, otherPod, other)).not.toBe(eventName(component, pod, event));
  });

  it('stays a DNS subdomain for a pod name at the length limit', () => {
    const name = eventName(component, { ...pod, name: `${'a'.repeat(235)}-b` }, event);
    expect(name.length).toBeLessThanOrEqual(253);
    expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/);
  });
});
