import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KubeNode } from '../../lambda/core/kube.js';
import { OUR_TAINT, TAINTED_BY_US_ANNOTATION, type NodeTaintEdit } from '../../lambda/core/out-of-service.js';
import { KubernetesNodeTaints, taintPatch } from '../../lambda/adapters/kubernetes/node-taints.js';
import { node, startHarness, stored, type Harness } from './support.js';

let h: Harness;
let taints: KubernetesNodeTaints;
beforeAll(async () => {
  h = await startHarness();
  taints = new KubernetesNodeTaints(h.clients.core, 3);
});
afterAll(() => h.stop());
beforeEach(() => h.sandbox.resetRequests());

const ours: NodeTaintEdit = { taints: [OUR_TAINT], mark: 'i-0123456789abcdef0' };
const liveOf = (name: string) => stored(h.sandbox, 'Node', undefined, name) as unknown as KubeNode;

describe('the taint patch (JSON patch guarded by a test of the resourceVersion)', () => {
  it('tests the version, writes the whole list and adds our mark', () => {
    const live: KubeNode = { metadata: { name: 'n', resourceVersion: '7', annotations: { a: 'b' } }, spec: { taints: [] } };
    expect(taintPatch(live, ours)).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: '7' },
      { op: 'add', path: '/spec/taints', value: [OUR_TAINT] },
      { op: 'add', path: '/metadata/annotations/ebs-attach-detach~1out-of-service-taint', value: 'i-0123456789abcdef0' },
    ]);
  });

  it('creates the annotations map when the node has none, and removes only our mark when untainting', () => {
    const bare: KubeNode = { metadata: { name: 'n', resourceVersion: '1' } };
    expect(taintPatch(bare, ours).slice(1)).toEqual([
      { op: 'add', path: '/spec', value: { taints: [OUR_TAINT] } },
      { op: 'add', path: '/metadata/annotations', value: { [TAINTED_BY_US_ANNOTATION]: 'i-0123456789abcdef0' } },
    ]);
    const marked: KubeNode = {
      metadata: { name: 'n', resourceVersion: '2', annotations: { [TAINTED_BY_US_ANNOTATION]: 'i-1' } },
      spec: {},
    };
    expect(taintPatch(marked, { taints: [], mark: null }).at(-1)).toEqual({
      op: 'remove',
      path: '/metadata/annotations/ebs-attach-detach~1out-of-service-taint',
    });
  });
});

describe('editTaints against the API server', () => {
  it('places the taint and the mark', async () => {
    h.sandbox.seed([node('t-place')]);
    expect(await taints.editTaints('t-place', () => ours)).toBe('updated');
    expect(liveOf('t-place').spec?.taints).toEqual([OUR_TAINT]);
    expect(liveOf('t-place').metadata.annotations?.[TAINTED_BY_US_ANNOTATION]).toBe('i-0123456789abcdef0');
  });

  it("never overwrites a concurrent writer's taint: the failed test makes it re-read and decide again on the live node", async () => {
    h.sandbox.seed([node('t-race')]);
    let calls = 0;
    const result = await taints.editTaints('t-race', (live) => {
      calls++;
      // Between our first read and our patch, an operator taints the node out of service.
      if (calls === 1) h.sandbox.kubelet.setOutOfService('t-race', true);
      const taken = (live.spec?.taints ?? []).some((t) => t.key === OUR_TAINT.key);
      return taken ? undefined : { taints: [...(live.spec?.taints ?? []), OUR_TAINT], mark: 'i-1' };
    });
    expect(result).toBe('unchanged');
    expect(calls).toBe(2);
    expect(h.sandbox.requests().filter((r) => r.verb === 'patch')).toMatchObject([{ status: 422 }]);
    expect(liveOf('t-race').metadata.annotations?.[TAINTED_BY_US_ANNOTATION]).toBeUndefined();
  });

  it('reports a node that is gone, and writes nothing when the edit says nothing changes', async () => {
    expect(await taints.editTaints('t-missing', () => ours)).toBe('node-gone');
    h.sandbox.seed([node('t-same')]);
    expect(await taints.editTaints('t-same', () => undefined)).toBe('unchanged');
    expect(h.sandbox.requests().filter((r) => r.verb === 'patch')).toEqual([]);
  });
});
