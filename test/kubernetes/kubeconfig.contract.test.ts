import { rootCertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKubeClients } from '../../lambda/adapters/kubernetes/clients.js';
import { kubeConfigForEks, kubeConfigFromFile } from '../../lambda/adapters/kubernetes/kubeconfig.js';
import { KubernetesCluster } from '../../lambda/adapters/kubernetes/kubernetes-cluster.js';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.js';
import { node } from './support.js';
import { systemClock } from '../../lambda/clock.js';

let sandbox: KubeSandbox;
beforeAll(async () => {
  sandbox = await startKubeSandbox();
  sandbox.seed([node('n1')]);
});
afterAll(() => sandbox.stop());

async function readWith(kc: ReturnType<typeof kubeConfigFromFile>) {
  const clients = createKubeClients(kc, { clock: systemClock });
  try {
    return await new KubernetesCluster(clients, systemClock).readNode('n1');
  } finally {
    await clients.close();
  }
}

describe('KubeConfig factory', () => {
  it('(a) a kubeconfig file: server, CA and token from the file', async () => {
    expect((await readWith(kubeConfigFromFile(sandbox.kubeconfigPath)))?.metadata.name).toBe('n1');
  });

  it('(a) KUBECONFIG is honoured when no path is given', () => {
    vi.stubEnv('KUBECONFIG', sandbox.kubeconfigPath);
    try {
      expect(kubeConfigFromFile().getCurrentCluster()?.server).toBe(sandbox.url);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('(b) an EKS endpoint, its CA, and a token provider asked on every request', async () => {
    const token = vi.fn(() => Promise.resolve(sandbox.token));
    const kc = kubeConfigForEks({
      clusterName: 'prod',
      endpoint: sandbox.url,
      caData: Buffer.from(sandbox.caPem).toString('base64'),
      token,
    });
    expect((await readWith(kc))?.metadata.name).toBe('n1');
    expect(token).toHaveBeenCalledTimes(1);
  });

  it('(b) a token the server rejects is a 401 error, not retried', async () => {
    const kc = kubeConfigForEks({
      clusterName: 'prod',
      endpoint: sandbox.url,
      caData: Buffer.from(sandbox.caPem).toString('base64'),
      token: () => Promise.resolve('k8s-aws-v1.wrong'),
    });
    sandbox.resetRequests();
    await expect(readWith(kc)).rejects.toThrow(/401/);
    expect(sandbox.requests()).toHaveLength(1);
  });

  it('(b) refuses a server its CA did not sign: TLS is verified', async () => {
    const unrelatedCa = rootCertificates[0] ?? '';
    const kc = kubeConfigForEks({
      clusterName: 'prod',
      endpoint: sandbox.url,
      caData: Buffer.from(unrelatedCa).toString('base64'),
      token: () => Promise.resolve(sandbox.token),
    });
    await expect(readWith(kc)).rejects.toThrow(/certificate|self[- ]signed|verify/i);
  });

  it('(b) refuses a plain-http endpoint', () => {
    expect(() =>
      kubeConfigForEks({ clusterName: 'prod', endpoint: 'http://example.com', caData: '', token: () => Promise.resolve('') }),
    ).toThrow(/must be https/);
  });
});
