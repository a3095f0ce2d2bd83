/**
 * Patch semantics, table by table: JSON merge patch (RFC 7386) and the strategic merge patch
 * strategies of the fields the controller writes, as tagged in k8s.io/api.
 */
import { describe, expect, it } from 'vitest';
import { applyPatch, mergePatch, patchTypes } from '../../sandbox/kube/patch.js';
import { patchSchemaFor } from '../../sandbox/kube/patch-schema.js';
import { ApiError } from '../../sandbox/kube/status.js';

const strategicPatch = (kind: string, current: object, patch: object) =>
  applyPatch(patchTypes.strategic, current, patch, patchSchemaFor(kind));

describe('JSON merge patch', () => {
  it.each([
    ['replaces scalars and lists', { a: 1, l: [1, 2] }, { a: 2, l: [3] }, { a: 2, l: [3] }],
    ['merges nested objects', { m: { x: 1, y: 2 } }, { m: { y: 3 } }, { m: { x: 1, y: 3 } }],
    ['removes a key set to null', { m: { x: 1, y: 2 } }, { m: { x: null } }, { m: { y: 2 } }],
    ['creates missing objects', {}, { m: { x: { y: 1 } } }, { m: { x: { y: 1 } } }],
  ])('%s', (_name, current, patch, expected) => {
    expect(mergePatch(current, patch)).toEqual(expected);
  });
});

describe('strategic merge patch', () => {
  const attached = (...ids: string[]) => ids.map((id) => ({ name: id, devicePath: '/dev/xvdaa' }));

  it.each([
    [
      'node volumesAttached is atomic: replaced whole',
      'Node',
      { status: { volumesAttached: attached('a', 'b') } },
      { status: { volumesAttached: attached('c') } },
      { status: { volumesAttached: attached('c') } },
    ],
    [
      'node volumesInUse is atomic',
      'Node',
      { status: { volumesInUse: ['a'] } },
      { status: { volumesInUse: ['b'] } },
      { status: { volumesInUse: ['b'] } },
    ],
    [
      'node taints are atomic',
      'Node',
      { spec: { taints: [{ key: 'a', effect: 'NoSchedule' }] } },
      { spec: { taints: [{ key: 'b', effect: 'NoExecute' }] } },
      { spec: { taints: [{ key: 'b', effect: 'NoExecute' }] } },
    ],
    [
      'node conditions merge by type',
      'Node',
      {
        status: {
          conditions: [
            { type: 'Ready', status: 'True' },
            { type: 'MemoryPressure', status: 'False' },
          ],
        },
      },
      { status: { conditions: [{ type: 'Ready', status: 'False' }] } },
      {
        status: {
          conditions: [
            { type: 'Ready', status: 'False' },
            { type: 'MemoryPressure', status: 'False' },
          ],
        },
      },
    ],
    [
      'a $patch: delete element leaves a keyed list',
      'Node',
      { status: { conditions: [{ type: 'Ready' }, { type: 'Gone' }] } },
      { status: { conditions: [{ type: 'Gone', $patch: 'delete' }] } },
      { status: { conditions: [{ type: 'Ready' }] } },
    ],
    [
      'a $patch: replace element replaces a keyed list',
      'Node',
      { status: { conditions: [{ type: 'Ready' }, { type: 'Old' }] } },
      { status: { conditions: [{ $patch: 'replace' }, { type: 'New' }] } },
      { status: { conditions: [{ type: 'New' }] } },
    ],
    [
      'finalizers merge as a set',
      'VolumeAttachment',
      { metadata: { finalizers: ['a', 'b'] } },
      { metadata: { finalizers: ['b', 'c'] } },
      { metadata: { finalizers: ['a', 'b', 'c'] } },
    ],
    [
      '$deleteFromPrimitiveList removes finalizers',
      'VolumeAttachment',
      { metadata: { finalizers: ['a', 'b'] } },
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } },
      { metadata: { finalizers: ['b'] } },
    ],
    [
      'finalizers: null removes them all',
      'VolumeAttachment',
      { metadata: { finalizers: ['a'] } },
      { metadata: { finalizers: null } },
      { metadata: {} },
    ],
    [
      '$setElementOrder orders a keyed list',
      'Node',
      { status: { conditions: [{ type: 'A' }, { type: 'B' }] } },
      { status: { '$setElementOrder/conditions': [{ type: 'B' }, { type: 'A' }] } },
      { status: { conditions: [{ type: 'B' }, { type: 'A' }] } },
    ],
    [
      '$patch: replace on a map replaces it',
      'VolumeAttachment',
      { status: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdaa' } } },
      { status: { $patch: 'replace', attached: false } },
      { status: { attached: false } },
    ],
    [
      'attachmentMetadata is a map: keys merge, null removes',
      'VolumeAttachment',
      { status: { attachmentMetadata: { devicePath: '/dev/xvdaa', x: '1' } } },
      { status: { attachmentMetadata: { x: null, y: '2' } } },
      { status: { attachmentMetadata: { devicePath: '/dev/xvdaa', y: '2' } } },
    ],
    [
      'pod containers merge by name',
      'Pod',
      {
        spec: {
          containers: [
            { name: 'a', image: '1' },
            { name: 'b', image: '1' },
          ],
        },
      },
      { spec: { containers: [{ name: 'b', image: '2' }] } },
      {
        spec: {
          containers: [
            { name: 'a', image: '1' },
            { name: 'b', image: '2' },
          ],
        },
      },
    ],
  ])('%s', (_name, kind, current, patch, expected) => {
    expect(strategicPatch(kind, current, patch)).toEqual(expected);
  });

  it('rejects an element of a keyed list without its merge key', () => {
    expect(() => strategicPatch('Node', { status: { conditions: [] } }, { status: { conditions: [{ status: 'True' }] } })).toThrow(
      /merge key: type/,
    );
  });
});

describe('patch bodies', () => {
  it.each([
    ['a merge patch that is not an object', patchTypes.merge, [1], 400],
    ['a JSON patch that is not a list', patchTypes.json, { op: 'add' }, 400],
    ['a JSON patch removing a missing path', patchTypes.json, [{ op: 'remove', path: '/nope' }], 422],
    ['an unknown patch type', 'application/yaml', {}, 415],
  ])('%s is answered %i', (_name, type, body, code) => {
    let error: unknown;
    try {
      applyPatch(type, { a: 1 }, body, patchSchemaFor('Node'));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe(code);
  });
});
