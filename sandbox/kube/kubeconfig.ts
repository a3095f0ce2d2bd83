/**
 * Writes a kubeconfig (context `sandbox`) for the server: its https URL, the CA that signed
 * its certificate, and the bearer token. JSON is valid YAML, so kubectl and client-node read it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface KubeconfigInput {
  url: string;
  caPem: string;
  token: string;
}

function kubeconfigDocument(input: KubeconfigInput): object {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'sandbox',
    clusters: [
      { name: 'sandbox', cluster: { server: input.url, 'certificate-authority-data': Buffer.from(input.caPem).toString('base64') } },
    ],
    users: [{ name: 'sandbox', user: { token: input.token } }],
    contexts: [{ name: 'sandbox', context: { cluster: 'sandbox', user: 'sandbox', namespace: 'default' } }],
    preferences: {},
  };
}

export async function writeKubeconfig(path: string, input: KubeconfigInput): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(kubeconfigDocument(input), null, 2)}\n`, { mode: 0o600 });
}
