/**
 * Where the local API server must behave as kube-apiserver does (registry strategies and
 * validation in kubernetes/kubernetes pkg/registry and pkg/apis/.../validation): timestamps,
 * always-serialised status, generation, unconditional updates, node status writes, validation.
 */
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call --
   tests read response bodies as loosely typed JSON, the way the wire sends them */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.js';
import { node, pod, raw, volumeAttachment } from './support.js';

let sandbox: KubeSandbox;
beforeAll(async () => {
  sandbox = await startKubeSandbox();
});
afterAll(() => sandbox.stop());

const VA_PATH = '/apis/storage.k8s.io/v1/volumeattachments';
const jsonPatch = (body: unknown) => ({ body, contentType: 'application/json-patch+json' });
const mergePatch = (body: unknown) => ({ body, contentType: 'application/merge-patch+json' });

describe('metav1.Time is second precision, metav1.MicroTime microseconds', () => {
  it('an Event written with milliseconds is stored and served without them (metav1.Time); its MicroTime keeps six digits', async () => {
    const created = await raw(sandbox, 'POST', '/api/v1/namespaces/default/events', {
      body: {
        metadata: { name: 'web.1' },
        involvedObject: { kind: 'Pod', namespace: 'default', name: 'web' },
        reason: 'FailedAttachVolume',
        firstTimestamp: '2025-06-01T12:00:00.123Z',
        lastTimestamp: '2025-06-01T12:00:05.999Z',
        eventTime: '2025-06-01T12:00:05.999000Z',
      },
    });
    expect(created.status).toBe(201);
    expect([created.body.firstTimestamp, created.body.lastTimestamp, created.body.eventTime]).toEqual([
      '2025-06-01T12:00:00Z',
      '2025-06-01T12:00:05Z',
      '2025-06-01T12:00:05.999000Z',
    ]);
  });

  // metav1.MicroTime decodes with time.Parse(RFC3339Micro), whose `.000000` takes exactly six digits.
  it('an Event whose eventTime has milliseconds is refused (400), as the decoder refuses it', async () => {
    const refused = await raw(sandbox, 'POST', '/api/v1/namespaces/default/events', {
      body: {
        metadata: { name: 'web.2' },
        involvedObject: { kind: 'Pod', namespace: 'default', name: 'web' },
        eventTime: '2025-06-01T12:00:05.999Z',
      },
    });
    expect(refused.status).toBe(400);
  });

  it('a VolumeAttachment attachError.time and node condition times too', async () => {
    sandbox.seed([volumeAttachment('csi-times', 'n-times'), node('n-times')]);
    const va = await raw(
      sandbox,
      'PATCH',
      `${VA_PATH}/csi-times/status`,
      mergePatch({ status: { attachError: { time: '2025-06-01T12:00:00.500Z', message: 'm' } } }),
    );
    expect(va.body.status.attachError.time).toBe('2025-06-01T12:00:00Z');
    const conditions = [
      { type: 'Ready', status: 'True', lastHeartbeatTime: '2025-06-01T12:00:00.250Z', lastTransitionTime: '2025-06-01T11:00:00.750Z' },
    ];
    const patched = await raw(sandbox, 'PATCH', '/api/v1/nodes/n-times/status', mergePatch({ status: { conditions } }));
    expect(patched.body.status.conditions[0]).toMatchObject({
      lastHeartbeatTime: '2025-06-01T12:00:00Z',
      lastTransitionTime: '2025-06-01T11:00:00Z',
    });
  });
});

describe('a VolumeAttachment always has status.attached', () => {
  it('created without status it reads {attached: false}, so JSON-patch add /status/attached works as on a cluster', async () => {
    const created = await raw(sandbox, 'POST', VA_PATH, { body: volumeAttachment('csi-patchme', 'n1') });
    expect(created.body.status).toEqual({ attached: false });
    const patched = await raw(
      sandbox,
      'PATCH',
      `${VA_PATH}/csi-patchme/status`,
      jsonPatch([{ op: 'add', path: '/status/attached', value: true }]),
    );
    expect(patched.status).toBe(200);
    expect(patched.body.status.attached).toBe(true);
  });
});

describe('metadata.generation only for kinds whose strategy sets it', () => {
  it.each([
    ['pods', '/api/v1/namespaces/default/pods', pod('default', 'gen-pod'), 1],
    ['nodes', '/api/v1/nodes', node('gen-node'), undefined],
    ['volumeattachments', VA_PATH, volumeAttachment('csi-gen', 'n1'), undefined],
    ['events', '/api/v1/namespaces/default/events', { metadata: { name: 'gen.1' }, involvedObject: { kind: 'Pod', name: 'p' } }, undefined],
  ])('%s', async (_resource, path, body, generation) => {
    const created = await raw(sandbox, 'POST', path, { body });
    expect(created.status).toBe(201);
    expect(created.body.metadata.generation).toBe(generation);
  });
});

describe('PUT without metadata.resourceVersion', () => {
  it('is 422 for a VolumeAttachment (AllowUnconditionalUpdate false) and accepted for a node', async () => {
    await raw(sandbox, 'POST', VA_PATH, { body: volumeAttachment('csi-put', 'n1') });
    const put = await raw(sandbox, 'PUT', `${VA_PATH}/csi-put`, {
      body: { ...volumeAttachment('csi-put', 'n1'), metadata: { name: 'csi-put', labels: { a: 'b' } } },
    });
    expect(put.status).toBe(422);
    expect(put.body.details.causes).toEqual([expect.objectContaining({ field: 'metadata.resourceVersion' })]);
    sandbox.seed([node('n-put')]);
    expect(
      (await raw(sandbox, 'PUT', '/api/v1/nodes/n-put', { body: { ...node('n-put'), metadata: { name: 'n-put', labels: { a: 'b' } } } }))
        .status,
    ).toBe(200);
  });
});

describe('a nodes/status write keeps metadata changes (the node status strategy resets only spec)', () => {
  it('labels patched with the status land; spec changes do not', async () => {
    sandbox.seed([node('n-status')]);
    const patched = await raw(
      sandbox,
      'PATCH',
      '/api/v1/nodes/n-status/status',
      mergePatch({ metadata: { labels: { zone: 'a' } }, spec: { unschedulable: true }, status: { volumesInUse: [] } }),
    );
    expect(patched.body.metadata.labels).toEqual({ zone: 'a' });
    expect(patched.body.spec.unschedulable).toBeUndefined();
  });

  it('a VolumeAttachment status write still drops metadata changes (ResetObjectMetaForStatus)', async () => {
    sandbox.seed([volumeAttachment('csi-status-meta', 'n1')]);
    const patched = await raw(
      sandbox,
      'PATCH',
      `${VA_PATH}/csi-status-meta/status`,
      mergePatch({ metadata: { labels: { x: 'y' } }, status: { attached: true } }),
    );
    expect(patched.body.metadata.labels).toBeUndefined();
  });
});

const claim = (spec: Record<string, unknown>) => ({ metadata: { name: 'c' }, spec });
const volume = (spec: Record<string, unknown>) => ({ metadata: { name: 'pv-v' }, spec });
const CSI = { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' };

describe('validation the real server enforces (422 with the field)', () => {
  it.each([
    [
      'a PVC without spec.resources.requests.storage',
      '/api/v1/namespaces/default/persistentvolumeclaims',
      claim({ accessModes: ['ReadWriteOnce'] }),
      'spec.resources[storage]',
    ],
    [
      'a PVC without access modes',
      '/api/v1/namespaces/default/persistentvolumeclaims',
      claim({ resources: { requests: { storage: '1Gi' } } }),
      'spec.accessModes',
    ],
    ['a PV without capacity', '/api/v1/persistentvolumes', volume({ accessModes: ['ReadWriteOnce'], csi: CSI }), 'spec.capacity'],
    [
      'a PV with a capacity other than storage',
      '/api/v1/persistentvolumes',
      volume({ accessModes: ['ReadWriteOnce'], capacity: { cpu: '1' }, csi: CSI }),
      'spec.capacity',
    ],
    [
      'a PV without a volume source',
      '/api/v1/persistentvolumes',
      volume({ accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } }),
      'spec',
    ],
    [
      'a VolumeAttachment with an invalid attacher name',
      VA_PATH,
      { ...volumeAttachment('csi-bad', 'n1'), spec: { attacher: 'ebs csi/aws', nodeName: 'n1', source: { persistentVolumeName: 'pv' } } },
      'spec.attacher',
    ],
    [
      'a VolumeAttachment with an attacher name over 63 characters',
      VA_PATH,
      {
        ...volumeAttachment('csi-long', 'n1'),
        spec: { attacher: `a${'b'.repeat(63)}`, nodeName: 'n1', source: { persistentVolumeName: 'pv' } },
      },
      'spec.attacher',
    ],
  ])('%s', async (_case, path, body, field) => {
    const response = await raw(sandbox, 'POST', path, { body });
    expect(response.status).toBe(422);
    expect(response.body.details.causes.map((cause: { field: string }) => cause.field)).toContain(field);
  });

  it('a valid PVC and PV are created', async () => {
    const pvc = claim({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } });
    expect((await raw(sandbox, 'POST', '/api/v1/namespaces/default/persistentvolumeclaims', { body: pvc })).status).toBe(201);
    const pv = volume({ accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, csi: CSI });
    expect((await raw(sandbox, 'POST', '/api/v1/persistentvolumes', { body: pv })).status).toBe(201);
  });

  it('a node spec.providerID may go from "" to a value, never change after', async () => {
    sandbox.seed([node('n-provider')]);
    const set = await raw(sandbox, 'PATCH', '/api/v1/nodes/n-provider', mergePatch({ spec: { providerID: 'aws:///us-east-1a/i-0a' } }));
    expect(set.status).toBe(200);
    const changed = await raw(sandbox, 'PATCH', '/api/v1/nodes/n-provider', mergePatch({ spec: { providerID: 'aws:///us-east-1a/i-0b' } }));
    expect(changed.status).toBe(422);
    expect(changed.body.details.causes).toEqual([expect.objectContaining({ field: 'spec.providerID', reason: 'FieldValueForbidden' })]);
  });

  it('a seeded fixture is held to the same rules: the sandbox refuses to store what a cluster never would', () => {
    expect(() => sandbox.seed([{ apiVersion: 'v1', kind: 'PersistentVolumeClaim', ...claim({ accessModes: ['ReadWriteOnce'] }) }])).toThrow(
      /spec.resources\[storage\]: Required value/,
    );
  });
});
