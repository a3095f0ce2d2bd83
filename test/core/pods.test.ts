import { describe, expect, it } from 'vitest';
import { isPodTerminated, podRefOf } from '../../lambda/core/pods.js';
import { pod, type PodOptions } from './builders.js';

// Upstream pkg/volume/util IsPodTerminated: Failed/Succeeded, or deleted with nothing running.
describe('isPodTerminated', () => {
  it.each<[string, PodOptions, boolean]>([
    ['a running pod is not terminated', {}, false],
    ['phase Succeeded is terminated', { phase: 'Succeeded', containers: ['running'] }, true],
    ['phase Failed is terminated', { phase: 'Failed' }, true],
    ['a pending pod is not terminated', { phase: 'Pending', containers: ['waiting'] }, false],
    ['waiting containers without a deletionTimestamp are not terminated', { containers: ['waiting', 'terminated'] }, false],
    ['deleted with every container terminated is terminated', { deleting: true, containers: ['terminated', 'terminated'] }, true],
    ['deleted with containers waiting or terminated is terminated', { deleting: true, containers: ['waiting', 'terminated'] }, true],
    ['deleted with no container statuses is terminated', { deleting: true, containers: [] }, true],
    ['deleted with a running container is not terminated', { deleting: true, containers: ['terminated', 'running'] }, false],
    ['deleted with a running init container is not terminated', { deleting: true, containers: ['waiting'], init: ['running'] }, false],
    [
      'deleted with a running ephemeral container is not terminated',
      { deleting: true, containers: ['terminated'], ephemeralContainers: ['running'] },
      false,
    ],
    [
      'deleted with a container of unknown state is not terminated (the empty state counts as running)',
      { deleting: true, containers: ['unknown'] },
      false,
    ],
  ])('%s', (_name, options, expected) => {
    expect(isPodTerminated(pod('p', options))).toBe(expected);
  });

  it('treats null status lists of a deleted pod as nothing running', () => {
    const deleted = pod('p', { deleting: true });
    deleted.status = { phase: 'Running', containerStatuses: null, initContainerStatuses: null, ephemeralContainerStatuses: null };
    expect(isPodTerminated(deleted)).toBe(true);
  });

  it('treats a pod without status as not terminated', () => {
    expect(isPodTerminated({ metadata: { name: 'p', namespace: 'd' } })).toBe(false);
  });
});

describe('podRefOf', () => {
  it('needs a name and a namespace', () => {
    expect(podRefOf({ metadata: { name: 'p', namespace: 'n', uid: 'u' } })).toEqual({ namespace: 'n', name: 'p', uid: 'u' });
    expect(podRefOf({ metadata: { name: 'p', namespace: 'n' } })).toEqual({ namespace: 'n', name: 'p', uid: '' });
    expect(podRefOf({ metadata: { name: 'p' } })).toBeUndefined();
  });
});
