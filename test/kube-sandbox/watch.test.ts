/**
 * Watch as kube-apiserver serves it: newline-delimited {type, object} events on a chunked
 * response, from a resourceVersion (history from the store, then live writes), the current
 * objects first for "any", 410 in an ERROR event for a compacted version, selectors, timeouts.
 */
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call --
   tests read events as loosely typed JSON, the way the wire sends them */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.js';
import { pod, raw } from './support.js';
import { manualScheduler, openWatch, type WireEvent } from './watch-support.js';

let sandbox: KubeSandbox;
const clock = manualScheduler();

beforeAll(async () => {
  sandbox = await startKubeSandbox({ watchScheduler: clock.schedule });
});
afterAll(() => sandbox.stop());

const mergePatch = 'application/merge-patch+json';

/** Creates, relabels and deletes one pod in `ns` through the API; returns the revision before. */
async function lifecycle(ns: string, name: string): Promise<string> {
  await raw(sandbox, 'POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } });
  const before = sandbox.resourceVersion();
  await raw(sandbox, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod(ns, name) });
  await raw(sandbox, 'PATCH', `/api/v1/namespaces/${ns}/pods/${name}`, {
    body: { metadata: { labels: { tier: 'web' } } },
    contentType: mergePatch,
  });
  await raw(sandbox, 'DELETE', `/api/v1/namespaces/${ns}/pods/${name}?gracePeriodSeconds=0`);
  return before;
}

function summary(events: WireEvent[]) {
  return events.map((e) => `${e.type} ${e.object.metadata?.name ?? e.object.reason}`);
}

describe('from a resourceVersion', () => {
  it('replays ADDED, MODIFIED, DELETED after it, in revision order, on a chunked JSON stream', async () => {
    const from = await lifecycle('replay', 'web');
    const watch = await openWatch(sandbox, `/api/v1/namespaces/replay/pods?watch=true&resourceVersion=${from}`);
    const events = await watch.until(3);
    watch.close();
    expect(watch.status).toBe(200);
    expect(watch.headers['content-type']).toBe('application/json');
    expect(watch.headers['transfer-encoding']).toBe('chunked');
    expect(summary(events)).toEqual(['ADDED web', 'MODIFIED web', 'DELETED web']);
    const versions = events.map((e) => Number(e.object.metadata.resourceVersion));
    expect(versions).toEqual([Number(from) + 1, Number(from) + 2, Number(from) + 3]);
    // DELETED carries the last state at the revision of the deletion, with its type.
    expect(events[2]?.object).toMatchObject({ kind: 'Pod', apiVersion: 'v1', metadata: { labels: { tier: 'web' } } });
  });

  it('follows live writes after the history, and only those of the watched namespace', async () => {
    await raw(sandbox, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'live' } } });
    const watch = await openWatch(sandbox, `/api/v1/namespaces/live/pods?watch=1&resourceVersion=${sandbox.resourceVersion()}`);
    await raw(sandbox, 'POST', '/api/v1/namespaces/default/pods', { body: pod('default', 'elsewhere') });
    await raw(sandbox, 'POST', '/api/v1/namespaces/live/pods', { body: pod('live', 'a') });
    await raw(sandbox, 'DELETE', '/api/v1/namespaces/live/pods/a?gracePeriodSeconds=0');
    expect(summary(await watch.until(2))).toEqual(['ADDED a', 'DELETED a']);
    watch.close();
  });

  it.each([
    ['unset', ''],
    ['"0" (any)', '&resourceVersion=0'],
  ])('with resourceVersion %s sends the current objects as ADDED, then follows', async (_name, rv) => {
    const ns = `any-${rv === '' ? 'unset' : 'zero'}`;
    await raw(sandbox, 'POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } });
    sandbox.seed([pod(ns, 'old-1'), pod(ns, 'old-2')]);
    const watch = await openWatch(sandbox, `/api/v1/namespaces/${ns}/pods?watch=true${rv}`);
    await raw(sandbox, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod(ns, 'new') });
    expect(summary(await watch.until(3))).toEqual(['ADDED old-1', 'ADDED old-2', 'ADDED new']);
    watch.close();
  });

  it('answers a compacted resourceVersion with one ERROR event holding a 410 Expired Status, then ends', async () => {
    const from = await lifecycle('compacted', 'web');
    sandbox.compact();
    const watch = await openWatch(sandbox, `/api/v1/namespaces/compacted/pods?watch=true&resourceVersion=${from}`);
    await watch.ended;
    expect(watch.status).toBe(200);
    expect(watch.events).toEqual([
      { type: 'ERROR', object: expect.objectContaining({ kind: 'Status', status: 'Failure', code: 410, reason: 'Expired' }) },
    ]);
    expect(watch.events[0]?.object.message).toMatch(/^too old resource version: /);
  });

  it('answers a resourceVersion ahead of the server with an ERROR event holding a 504', async () => {
    const watch = await openWatch(sandbox, `/api/v1/pods?watch=true&resourceVersion=${Number(sandbox.resourceVersion()) + 100}`);
    await watch.ended;
    expect(watch.events.map((e) => [e.type, e.object.code, e.object.reason])).toEqual([['ERROR', 504, 'Timeout']]);
  });
});

describe('selectors', () => {
  it('turns an object entering a label selection into ADDED and one leaving it into DELETED', async () => {
    const from = await lifecycle('labels', 'web');
    const watch = await openWatch(sandbox, `/api/v1/namespaces/labels/pods?watch=true&resourceVersion=${from}&labelSelector=tier%3Dweb`);
    const events = await watch.until(2);
    watch.close();
    expect(summary(events)).toEqual(['ADDED web', 'DELETED web']);
    expect(events[0]?.object.metadata.labels).toEqual({ tier: 'web' });
  });

  it('filters by field selector across namespaces', async () => {
    await raw(sandbox, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'fields' } } });
    const watch = await openWatch(
      sandbox,
      `/api/v1/pods?watch=true&resourceVersion=${sandbox.resourceVersion()}&fieldSelector=spec.nodeName%3Dn7`,
    );
    await raw(sandbox, 'POST', '/api/v1/namespaces/fields/pods', { body: pod('fields', 'on-n6', 'n6') });
    await raw(sandbox, 'POST', '/api/v1/namespaces/fields/pods', { body: pod('fields', 'on-n7', 'n7') });
    expect(summary(await watch.until(1))).toEqual(['ADDED on-n7']);
    watch.close();
    expect(watch.events).toHaveLength(1);
  });
});

describe('ending', () => {
  it('ends the stream cleanly when timeoutSeconds runs out', async () => {
    const watch = await openWatch(sandbox, '/api/v1/nodes?watch=true&timeoutSeconds=5');
    clock.advance(4999);
    expect(clock.pending()).toBeGreaterThan(0);
    clock.advance(1);
    await watch.ended;
  });

  it('ends open streams with their terminating chunk when the server stops', async () => {
    const own = await startKubeSandbox();
    const watches = await Promise.all([openWatch(own, '/api/v1/pods?watch=true'), openWatch(own, '/api/v1/nodes?watch=true')]);
    await own.stop();
    await Promise.all(watches.map((w) => w.ended));
  });
});

describe('bookmarks (allowWatchBookmarks=true)', () => {
  it('sends a BOOKMARK at the current revision about every minute and 2 s before the deadline, none without asking', async () => {
    const from = sandbox.resourceVersion();
    const asked = await openWatch(sandbox, `/api/v1/nodes?watch=true&allowWatchBookmarks=true&timeoutSeconds=150&resourceVersion=${from}`);
    const plain = await openWatch(sandbox, `/api/v1/nodes?watch=true&timeoutSeconds=150&resourceVersion=${from}`);
    // Events cross the network: a request answered after the stream's write proves the write was not there.
    const settled = () => raw(sandbox, 'GET', '/version');
    clock.advance(59_999);
    await settled();
    expect(asked.events).toEqual([]);
    clock.advance(1);
    const [first] = await asked.until(1);
    expect(first).toEqual({ type: 'BOOKMARK', object: { kind: 'Node', apiVersion: 'v1', metadata: { resourceVersion: from } } });
    // A write of another kind moves the revision on: a bookmark says the watcher has seen everything up to it.
    sandbox.seed([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bookmarked' } }]);
    clock.advance(60_000);
    const [, second] = await asked.until(2);
    expect(Number(second?.object.metadata.resourceVersion)).toBe(Number(from) + 1);
    clock.advance(27_999);
    await settled();
    expect(asked.events).toHaveLength(2);
    clock.advance(1);
    const [, , last] = await asked.until(3);
    expect(last?.type).toBe('BOOKMARK');
    expect(last?.object.metadata.annotations).toBeUndefined();
    clock.advance(2_000);
    await Promise.all([asked.ended, plain.ended]);
    expect(plain.events).toEqual([]);
  });
});

describe('sendInitialEvents (watch-list)', () => {
  it('sends the current objects, then a BOOKMARK marked initial-events-end', async () => {
    await raw(sandbox, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'watchlist' } } });
    sandbox.seed([pod('watchlist', 'p1')]);
    const query = 'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true';
    const watch = await openWatch(sandbox, `/api/v1/namespaces/watchlist/pods?${query}`);
    const [added, mark] = await watch.until(2);
    watch.close();
    expect(added?.type).toBe('ADDED');
    expect(mark).toEqual({
      type: 'BOOKMARK',
      object: {
        kind: 'Pod',
        apiVersion: 'v1',
        metadata: { resourceVersion: sandbox.resourceVersion(), annotations: { 'k8s.io/initial-events-end': 'true' } },
      },
    });
  });
});

describe('kubectl get -w', () => {
  it('streams Table rows when asked for tables', async () => {
    await raw(sandbox, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'tables' } } });
    sandbox.seed([pod('tables', 'shown')]);
    const watch = await openWatch(
      sandbox,
      '/api/v1/namespaces/tables/pods?watch=true',
      'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    );
    const [event] = await watch.until(1);
    watch.close();
    expect(event?.object.kind).toBe('Table');
    expect(event?.object.rows[0].cells.slice(0, 3)).toEqual(['shown', '0/1', 'Running']);
  });
});

describe('through @kubernetes/client-node Watch', () => {
  it('delivers the events in order to the callback', async () => {
    const config = new k8s.KubeConfig();
    config.loadFromFile(sandbox.kubeconfigPath);
    const from = await lifecycle('client', 'web');
    const seen: string[] = [];
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    const controller = await new k8s.Watch(config).watch(
      '/api/v1/namespaces/client/pods',
      { resourceVersion: from },
      (type: string, object: k8s.V1Pod) => {
        seen.push(`${type} ${object.metadata?.name}`);
        if (seen.length === 3) controller.abort();
      },
      () => finished(),
    );
    await done;
    expect(seen).toEqual(['ADDED web', 'MODIFIED web', 'DELETED web']);
  });

  it('hands a compacted resourceVersion to the callback as an ERROR with the 410 Status, then calls done without error', async () => {
    const config = new k8s.KubeConfig();
    config.loadFromFile(sandbox.kubeconfigPath);
    const from = await lifecycle('client-gone', 'web');
    sandbox.compact();
    const seen: [string, number | undefined][] = [];
    const error = await new Promise<unknown>((resolve) => {
      void new k8s.Watch(config).watch(
        '/api/v1/namespaces/client-gone/pods',
        { resourceVersion: from },
        (type: string, object: k8s.V1Status) => seen.push([type, object.code]),
        resolve,
      );
    });
    expect(seen).toEqual([['ERROR', 410]]);
    expect(error).toBeNull();
  });
});
