/**
 * Runs the kube sandbox on its own: `npm run sandbox:kube -- --port 6443`.
 * Prints the kubeconfig path and a kubectl example; stops on Ctrl-C.
 */
import { writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startKubeSandbox } from './index.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '6443' },
    host: { type: 'string', default: '127.0.0.1' },
    token: { type: 'string' },
    kubeconfig: { type: 'string', default: '.sandbox/kube/kubeconfig' },
    'compaction-interval': { type: 'string', default: '300', description: 'seconds between compactions; 0 turns it off' },
  },
});

const compactionSeconds = Number(values['compaction-interval']);
const sandbox = await startKubeSandbox({
  port: Number(values.port),
  host: values.host,
  kubeconfigPath: resolve(values.kubeconfig),
  ...(values.token ? { token: values.token } : {}),
  ...(compactionSeconds > 0 ? { compactionIntervalMs: compactionSeconds * 1000 } : {}),
});

// The CA beside the kubeconfig, for curl and other clients that take a file.
const caPath = join(dirname(sandbox.kubeconfigPath), 'ca.crt');
await writeFile(caPath, sandbox.caPem);

console.log(`kube sandbox listening on ${sandbox.url}`);
console.log(`kubeconfig: ${sandbox.kubeconfigPath}`);
console.log(`try:        kubectl --kubeconfig ${sandbox.kubeconfigPath} get nodes`);
console.log(
  `seed:       curl --cacert ${caPath} -H 'Authorization: Bearer ${sandbox.token}' -d @objects.json ${sandbox.url}/_sandbox/seed`,
);

const shutdown = () => void sandbox.stop().then(() => process.exit(0));
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
