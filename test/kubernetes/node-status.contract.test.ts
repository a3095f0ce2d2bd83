import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { node, startHarness, stored, uniqueName, type Harness } from './support.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());
beforeEach(() => {
  h.sandbox.faults.clear();
  h.sandbox.resetRequests();
});

const a = { name: uniqueName('vol-0aaaaaaaaaaaaaaaa'), devicePath: '/dev/xvdaa' };
const b = { name: uniqueName('vol-0bbbbbbbbbbbbbbbb'), devicePath: '/dev/xvdab' };
const attachedOn = (name: string): unknown => stored(h.sandbox, 'Node', undefined, name)?.status?.volumesAttached ?? [];
const writes = () => h.sandbox.requests().filter((r) => r.verb === 'patch' && r.resource === 'nodes');

describe('setVolumesAttached (nodes/status, atomic list, resourceVersion-guarded)', () => {
  it('writes the list through the status subresource with the resourceVersion it read', async () => {
    h.sandbox.seed([node('n-write')]);
    expect(await h.cluster.setVolumesAttached('n-write', [a, a])).toBe('updated');
    expect(attachedOn('n-write')).toEqual([a]);
    expect(writes()).toMatchObject([{ subresource: 'status', name: 'n-write', status: 200 }]);
  });

  it('writes nothing when the node already reports exactly that list', async () => {
    h.sandbox.seed([node('n-same', { volumesAttached: [a, b] })]);
    expect(await h.cluster.setVolumesAttached('n-same', [b, a])).toBe('unchanged');
    expect(writes()).toEqual([]);
  });

  it('returns node-gone for a node that no longer exists, without retrying', async () => {
    expect(await h.cluster.setVolumesAttached('n-missing', [a])).toBe('node-gone');
    expect(h.sandbox.requests()).toHaveLength(1);
  });

  it('keeps both changes when two writers race on the same resourceVersion: the loser re-reads and re-applies', async () => {
    h.sandbox.seed([node('n-race')]);
    // Both writers read the node at once; their PATCHes arrive together; one must get 409.
    h.sandbox.faults.latency(100, { method: 'PATCH', path: '/api/v1/nodes/n-race/status' });
    const [first, second] = await Promise.all([
      h.cluster.setVolumesAttached('n-race', [a], { base: [] }),
      h.another().setVolumesAttached('n-race', [b], { base: [] }),
    ]);
    expect([first, second]).toEqual(['updated', 'updated']);
    expect(attachedOn('n-race')).toEqual(expect.arrayContaining([a, b]));
    expect(
      writes()
        .map((r) => r.status)
        .sort(),
    ).toEqual([200, 200, 409]);
  });

  it("applies only the caller's change: removing one volume keeps what another pass added meanwhile", async () => {
    h.sandbox.seed([node('n-unreport', { volumesAttached: [a, b] })]);
    // This pass read [a] earlier; someone added b since. Unreporting a must not drop b.
    expect(await h.cluster.setVolumesAttached('n-unreport', [], { base: [a] })).toBe('updated');
    expect(attachedOn('n-unreport')).toEqual([b]);
  });

  it('gives up after a bounded number of conflicts', async () => {
    h.sandbox.seed([node('n-busy')]);
    h.sandbox.faults.failNext({ method: 'PATCH', path: '/api/v1/nodes/n-busy/status' }, 100, 409);
    await expect(h.cluster.setVolumesAttached('n-busy', [a])).rejects.toThrow(/still conflicting after 6 attempts/);
    expect(writes()).toHaveLength(6);
  });

  it('returns node-gone when the node is deleted between the read and the write', async () => {
    h.sandbox.seed([node('n-vanish')]);
    h.sandbox.faults.failNext({ method: 'PATCH', path: '/api/v1/nodes/n-vanish/status' }, 1, 404);
    expect(await h.cluster.setVolumesAttached('n-vanish', [a])).toBe('node-gone');
  });

  // A write that did not happen must never read as one: the caller would detach a volume the node still lists.
  it.each<[string, number, number, RegExp]>([
    ['403 Forbidden (RBAC or an admission policy)', 403, 1, /nodes\/n-refused-403\/status failed: 403 Forbidden/],
    ['500 on every attempt the request policy makes', 500, 4, /nodes\/n-refused-500\/status failed: 500 InternalError/],
  ])('throws when the status write is refused with %s, leaving the list as it was', async (_name, code, times, message) => {
    const name = `n-refused-${code}`;
    h.sandbox.seed([node(name, { volumesAttached: [a] })]);
    h.sandbox.faults.failNext({ method: 'PATCH', path: `/api/v1/nodes/${name}/status` }, times, code);
    await expect(h.cluster.setVolumesAttached(name, [b], { base: [a] })).rejects.toThrow(message);
    expect(attachedOn(name)).toEqual([a]);
    expect(writes().map((r) => r.status)).toEqual(Array.from({ length: times }, () => code));
  });

  it('a 500 the request policy retried past is a write like any other', async () => {
    h.sandbox.seed([node('n-flaky')]);
    h.sandbox.faults.failNext({ method: 'PATCH', path: '/api/v1/nodes/n-flaky/status' }, 1, 500);
    expect(await h.cluster.setVolumesAttached('n-flaky', [a])).toBe('updated');
    expect(attachedOn('n-flaky')).toEqual([a]);
  });
});
