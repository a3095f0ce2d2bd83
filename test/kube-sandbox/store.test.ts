/**
 * The store and list semantics on their own: revisions, snapshots, compaction, the
 * resourceVersion/resourceVersionMatch table, and selectors.
 */
import { describe, expect, it } from 'vitest';
import { listObjects } from '../../sandbox/kube/list.js';
import { findByKind, type ResourceType } from '../../sandbox/kube/resources.js';
import { parseFieldSelector, parseLabelSelector } from '../../sandbox/kube/selectors.js';
import type { ApiError } from '../../sandbox/kube/status.js';
import { VersionedStore, type KubeObject } from '../../sandbox/kube/store.js';

const pods = findByKind('Pod') as ResourceType;
const pod = (name: string, labels: Record<string, string> = {}, nodeName = 'n1'): KubeObject => ({
  metadata: { name, namespace: 'default', labels },
  spec: { nodeName },
});

function storeWith(count: number): VersionedStore {
  const store = new VersionedStore();
  for (let i = 0; i < count; i++) store.put('pods', `default/p${i}`, pod(`p${i}`));
  return store;
}

const list = (store: VersionedStore, query: Record<string, string>) => listObjects(store, pods, 'default', new URLSearchParams(query));

function codeOf(call: () => unknown): number {
  try {
    call();
    return 200;
  } catch (error) {
    return (error as ApiError).code;
  }
}

describe('revisions', () => {
  it('stamps every write with the next global revision', () => {
    const store = new VersionedStore();
    expect(store.put('pods', 'default/a', pod('a'))?.metadata.resourceVersion).toBe('1');
    expect(store.put('nodes', 'n', { metadata: { name: 'n' } })?.metadata.resourceVersion).toBe('2');
    expect(store.currentRv()).toBe(2);
  });

  it('serves a list at an older revision exactly, until compaction forgets it', () => {
    const store = storeWith(3);
    store.put('pods', 'default/p9', pod('p9'));
    expect(list(store, { resourceVersion: '3', resourceVersionMatch: 'Exact' }).items.map((p) => p.metadata.name)).toEqual([
      'p0',
      'p1',
      'p2',
    ]);
    store.compact();
    expect(codeOf(() => list(store, { resourceVersion: '3', resourceVersionMatch: 'Exact' }))).toBe(410);
  });
});

describe('resourceVersion on lists', () => {
  it.each([
    ['unset: most recent', {}, 200, 4],
    ['0: any (here the most recent)', { resourceVersion: '0' }, 200, 4],
    ['NotOlderThan an old revision: most recent', { resourceVersion: '2', resourceVersionMatch: 'NotOlderThan' }, 200, 4],
    ['with limit and no match: exact', { resourceVersion: '2', limit: '10' }, 200, 2],
    ['ahead of the server: 504', { resourceVersion: '99' }, 504, 0],
    ['Exact with 0: 400', { resourceVersion: '0', resourceVersionMatch: 'Exact' }, 400, 0],
    ['not a number: 400', { resourceVersion: 'abc' }, 400, 0],
    ['a continue token with a resourceVersion: 400', { resourceVersion: '2', continue: 'x' }, 400, 0],
    ['an unreadable continue token: 400', { continue: 'not-a-token' }, 400, 0],
  ])('%s', (_name, query, code, items) => {
    const store = storeWith(4);
    expect(codeOf(() => list(store, query))).toBe(code);
    if (code === 200) expect(list(store, query).items).toHaveLength(items);
  });

  it('issues no continue token when the last page is full and nothing follows', () => {
    const page = list(storeWith(4), { limit: '4' });
    expect([page.items.length, page.metadata.continue]).toEqual([4, undefined]);
  });
});

describe('selectors', () => {
  const labelled = pod('x', { app: 'web', tier: 'front' });

  it.each([
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app=db', false],
    ['app', true],
    ['!app', false],
    ['!zone', true],
    ['app in (db,web)', true],
    ['app notin (db,web)', false],
    ['zone notin (a)', true],
    ['app=web,tier=front', true],
    ['app=web,tier=back', false],
    ['', true],
  ])('label selector %s → %s', (selector, expected) => {
    expect(parseLabelSelector(selector)(labelled)).toBe(expected);
  });

  it.each([
    ['spec.nodeName=n1', true],
    ['spec.nodeName==n1', true],
    ['spec.nodeName!=n1', false],
    ['spec.nodeName=n2', false],
    ['metadata.name=x,metadata.namespace=default', true],
    ['spec.hostNetwork=false', true],
    ['status.phase=', true],
  ])('field selector %s → %s', (selector, expected) => {
    expect(parseFieldSelector(selector, pods)(labelled)).toBe(expected);
  });

  it('rejects field labels the type does not support', () => {
    expect(() => parseFieldSelector('spec.priority=1', pods)).toThrow(/field label not supported: spec.priority/);
  });
});

describe('compaction', () => {
  it('to an older revision keeps lists at or after it and expires those before', () => {
    const store = storeWith(3); // revisions 1..3
    store.put('pods', 'default/p0', null); // 4: p0 deleted
    store.put('pods', 'default/p1', pod('p1', { v: '2' })); // 5
    store.compact(4);
    expect(codeOf(() => list(store, { resourceVersion: '3', resourceVersionMatch: 'Exact' }))).toBe(410);
    expect(
      list(store, { resourceVersion: '4', resourceVersionMatch: 'Exact' }).items.map((p) => [p.metadata.name, p.metadata.labels]),
    ).toEqual([
      ['p1', {}],
      ['p2', {}],
    ]);
    expect(list(store, {}).items.map((p) => p.metadata.labels)).toEqual([{ v: '2' }, {}]);
  });

  it('never moves backwards', () => {
    const store = storeWith(3);
    store.compact();
    store.compact(1);
    expect(store.compactedRv()).toBe(3);
  });
});
