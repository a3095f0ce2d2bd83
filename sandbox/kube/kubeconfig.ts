/**
 * Writes a kubeconfig (context `sandbox`) for the server: its https URL, the CA that signed
 * its certificate, and the bearer token. JSON is valid YAML, so kubectl and client-node read it.
 * A plain-HTTP server gets `insecure-skip-tls-verify`: client-node refuses http without it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface KubeconfigInput {
  url: string;
  caPem: string;
  token: string;
}

function clusterOf(input: KubeconfigInput): object {
  if (input.url.startsWith('http:')) return { server: input.url, 'insecure-skip-tls-verify': true };
  return { server: input.url, 'certificate-authority-data': Buffer.from(input.caPem).toString('base64') };
}

function kubeconfigDocument(input: KubeconfigInput): object {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'sandbox',
    clusters: [{ name: 'sandbox', cluster: clusterOf(input) }],
    users: [{ name: 'sandbox', user: { token: input.token } }],
    contexts: [{ name: 'sandbox', context: { cluster: 'sandbox', user: 'sandbox', namespace: 'default' } }],
    preferences: {},
  };
}

export async function writeKubeconfig(path: string, input: KubeconfigInput): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(kubeconfigDocument(input), null, 2)}\n`, { mode: 0o600 });
}
