/** The fault rig's local Kubernetes API over plain HTTP (sandbox/kube `transport: 'http'`), through the controller's own client. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClients } from '../../lambda/adapters/kubernetes/clients.js';
import { kubeConfigFromFile } from '../../lambda/adapters/kubernetes/kubeconfig.js';
import { KubernetesCluster } from '../../lambda/adapters/kubernetes/kubernetes-cluster.js';
import { systemClock } from '../../lambda/clock.js';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.js';
import { node } from '../kubernetes/support.js';

let sandbox: KubeSandbox;
beforeAll(async () => {
  sandbox = await startKubeSandbox({ transport: 'http' });
  sandbox.seed([node('n1')]);
});
afterAll(() => sandbox.stop());

describe('the local Kubernetes API over plain HTTP', () => {
  it('serves the controller through the kubeconfig it writes, token and all', async () => {
    expect(sandbox.url).toMatch(/^http:\/\//);
    const clients = createKubeClients(kubeConfigFromFile(sandbox.kubeconfigPath), { clock: systemClock });
    try {
      expect((await new KubernetesCluster(clients, systemClock).readNode('n1'))?.metadata.name).toBe('n1');
    } finally {
      await clients.close();
    }
    expect(sandbox.counters()).toEqual({ 'get nodes': 1 });
  });

  it('still refuses a request without the token', async () => {
    expect((await fetch(`${sandbox.url}/api/v1/nodes`)).status).toBe(401);
  });
});
