/** The turnstile the fault rig serves requests through (sandbox/turnstile.ts): order by creation, one at a time. */
import { request as httpRequest, createServer, type ClientRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { Turnstile } from '../../sandbox/turnstile.js';

const turnOf = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Started {
  server: Server;
  url: string;
  /** Paths in the order the handler began serving them, and how many were in service at once at most. */
  served: string[];
  mostAtOnce: () => number;
}

async function startServer(turnstile?: Turnstile): Promise<Started> {
  const served: string[] = [];
  let inService = 0;
  let most = 0;
  const server = createServer((request, response) => {
    served.push(request.url ?? '');
    most = Math.max(most, ++inService);
    // Answer a few turns later, as a server doing some work would.
    void turnOf()
      .then(turnOf)
      .then(() => {
        inService -= 1;
        response.end('ok');
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  turnstile?.gate(server);
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, served, mostAtOnce: () => most };
}

function send(url: string, path: string): { request: ClientRequest; answered: Promise<string> } {
  let request!: ClientRequest;
  const answered = new Promise<string>((resolve, reject) => {
    request = httpRequest(`${url}${path}`, { method: 'POST' }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve(body));
    });
    request.on('error', reject);
  });
  return { request, answered };
}

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const undo of cleanup.splice(0)) undo();
});

function started(turnstile: Turnstile, server: Server): void {
  cleanup.push(() => {
    turnstile.stop();
    server.closeAllConnections();
    server.close();
  });
}

describe('Turnstile', () => {
  it('serves requests in the order their clients created them, not the order they arrived in', async () => {
    const turnstile = new Turnstile();
    const stack = await startServer(turnstile);
    started(turnstile, stack.server);
    const first = send(stack.url, '/first'); // created first, but its headers leave only later
    const second = send(stack.url, '/second');
    second.request.end();
    for (let i = 0; i < 20; i++) await turnOf(); // the second has long arrived; it waits for the first
    expect(stack.served).toEqual([]);
    first.request.end();
    await Promise.all([first.answered, second.answered]);
    expect(stack.served).toEqual(['/first', '/second']);
  });

  it('has one request in service at a time, across clients and libraries (node:http and undici)', async () => {
    const turnstile = new Turnstile();
    const stack = await startServer(turnstile);
    started(turnstile, stack.server);
    const viaHttp = ['/a', '/b', '/c'].map((path) => send(stack.url, path));
    for (const { request } of viaHttp) request.end();
    const viaUndici = ['/d', '/e'].map((path) => fetch(`${stack.url}${path}`, { method: 'POST' }).then((r) => r.text()));
    const answers = await Promise.all([...viaHttp.map((s) => s.answered), ...viaUndici]);
    expect(answers).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(stack.served).toEqual(['/a', '/b', '/c', '/d', '/e']);
    expect(stack.mostAtOnce()).toBe(1);
    expect(turnstile.untimely).toBe(0);
  });

  it('drained() waits for a request already sent, and for what its answer leads to', async () => {
    const turnstile = new Turnstile();
    const stack = await startServer(turnstile);
    started(turnstile, stack.server);
    const done: string[] = [];
    const chain = send(stack.url, '/one');
    chain.request.end();
    void chain.answered.then(() => {
      done.push('one');
      const next = send(stack.url, '/two');
      next.request.end();
      return next.answered.then(() => done.push('two'));
    });
    await turnstile.drained();
    expect(done).toEqual(['one', 'two']);
  });

  it('leaves servers it does not gate alone', async () => {
    const turnstile = new Turnstile();
    const plain = await startServer();
    started(turnstile, plain.server);
    const [a, b] = [send(plain.url, '/a'), send(plain.url, '/b')];
    a.request.end();
    b.request.end();
    await Promise.all([a.answered, b.answered]);
    expect(plain.mostAtOnce()).toBe(2);
    await turnstile.drained();
  });
});

describe('Turnstile, when a client gives up', () => {
  it('serves a waiting request whose client is gone in its turn, and admits nothing else until its server is done', async () => {
    const turnstile = new Turnstile();
    const stack = await startServer(turnstile);
    started(turnstile, stack.server);
    const first = send(stack.url, '/first');
    const abandoned = send(stack.url, '/abandoned');
    const last = send(stack.url, '/last');
    for (const { request } of [first, abandoned, last]) request.end();
    abandoned.answered.catch(() => undefined);
    for (let i = 0; i < 20; i++) await turnOf(); // all three arrived: /first in service, the others waiting
    abandoned.request.destroy(); // its client closes (a pass that returned with a write in flight)
    await Promise.all([first.answered, last.answered]);
    await turnstile.drained();
    expect(stack.served).toEqual(['/first', '/abandoned', '/last']);
    expect(stack.mostAtOnce()).toBe(1);
    expect(turnstile.untimely).toBe(0);
  });
});
