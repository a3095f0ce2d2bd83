/**
 * A local Kubernetes API server for tests and demos: HTTPS with a throwaway CA (or plain HTTP), bearer-token
 * auth, the core/v1 and storage.k8s.io/v1 resources the controller uses, fault injection,
 * kubelet helpers and a request log. See README.md for what it models and what it does not.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createComponentClient } from './components.js';
import { Faults } from './faults.js';
import { defaultNamespaces, ensureNamespace, getObject, listKind, seedObjects } from './fixtures.js';
import { writeKubeconfig } from './kubeconfig.js';
import { bindClaim, createKubelet } from './kubelet.js';
import { Registry } from './registry.js';
import { RequestLog } from './request-log.js';
import { RequestHooks } from './request-hooks.js';
import { createRequestHandler } from './server.js';
import { VersionedStore } from './store.js';
import { tlsMaterial } from './tls.js';
import { Watches } from './watch.js';
import type { KubeSandbox, KubeSandboxOptions } from './types.js';

export type { KubeSandbox, KubeSandboxOptions } from './types.js';
export type { LoggedRequest } from './request-log.js';
export { outOfServiceTaint } from './kubelet.js';

function hostForUrl(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startKubeSandbox(options: KubeSandboxOptions = {}): Promise<KubeSandbox> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(24).toString('base64url');
  const plain = options.transport === 'http';
  const tls = plain ? { caPem: '', certPem: '', keyPem: '' } : await tlsMaterial(host);
  const registry = new Registry(new VersionedStore(), options.now);
  for (const namespace of defaultNamespaces) ensureNamespace(registry, namespace);
  const faults = new Faults();
  const log = new RequestLog();
  const watches = new Watches(registry.store, options.watchScheduler);
  const hooks = new RequestHooks();

  const sandbox: Omit<KubeSandbox, 'url' | 'kubeconfigPath' | 'stop'> = {
    token,
    caPem: tls.caPem,
    seed: (objects) => void seedObjects(registry, objects),
    get: (kind, namespace, name) => getObject(registry, kind, namespace, name),
    list: (kind, namespace) => listKind(registry, kind, namespace),
    bind: (namespace, claim, volume) => bindClaim(registry, namespace, claim, volume),
    kubelet: createKubelet(registry, options.now),
    components: createComponentClient(registry),
    faults: {
      failNext: (match, count, code, reason) => faults.failNext(match, count, code, reason),
      latency: (ms, match) => faults.latency(ms, match),
      breakPagination: (match, pageOptions) => faults.breakPagination(match, pageOptions),
      clear: () => faults.clear(),
    },
    requests: () => log.requests(),
    counters: () => log.counters(),
    resetRequests: () => log.reset(),
    onRequest: (hook) => hooks.add(hook),
    compact: () => registry.store.compact(),
    stallWatches: () => watches.stall(),
    resourceVersion: () => String(registry.store.currentRv()),
  };

  let address = '';
  const handler = createRequestHandler({
    registry,
    faults,
    log,
    token,
    control: sandbox,
    watches,
    hooks,
    serverAddress: () => address,
  });
  const server = plain ? createHttpServer(handler) : createServer({ cert: tls.certPem, key: tls.keyPem }, handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  options.turnstile?.gate(server);
  const port = (server.address() as AddressInfo).port;
  address = `${hostForUrl(host)}:${port}`;
  const url = `${plain ? 'http' : 'https'}://${address}`;

  const tempDir = options.kubeconfigPath ? undefined : await mkdtemp(join(tmpdir(), 'kube-sandbox-'));
  const kubeconfigPath = options.kubeconfigPath ?? join(tempDir as string, 'kubeconfig');
  await writeKubeconfig(kubeconfigPath, { url, caPem: tls.caPem, token });

  // Like the apiserver's compactor: each tick compacts to the revision seen at the previous
  // tick, so a continue token stays usable for at least one interval.
  let previousTick = registry.store.currentRv();
  const compaction = options.compactionIntervalMs
    ? setInterval(() => {
        registry.store.compact(previousTick);
        previousTick = registry.store.currentRv();
      }, options.compactionIntervalMs).unref()
    : undefined;

  return {
    ...sandbox,
    url,
    kubeconfigPath,
    async stop() {
      clearInterval(compaction);
      await watches.endAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (tempDir) await rm(tempDir, { recursive: true, force: true });
    },
  };
}
